"""Compiled kernels avoid constructs whose compilation costs far more than their code.

``dst[:] = src``, ``a[i, :] = row`` or ``a[i] = (x, y)`` inside a kernel makes numba compile the
formatting of its shape-mismatch message: about 14 s in every process that compiles such a kernel
first (measured: ``a[:] = b`` 14.1 s against 0.5 s for the loop; ``numerics/copying.py``).
"""

import ast
from pathlib import Path

import actuatorlab

SOURCE = Path(actuatorlab.__file__).parent


def _compiled_functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            "njit" in ast.unparse(d) or "jit(" in ast.unparse(d) for d in node.decorator_list
        ):
            yield node


def _copies_a_sequence(node: ast.Assign) -> bool:
    """An assignment to a slice, or of a tuple or list to a subscript."""
    for target in node.targets:
        if isinstance(target, ast.Subscript):
            parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
            if any(isinstance(p, ast.Slice) for p in parts) or isinstance(node.value, (ast.Tuple, ast.List)):
                return True
    return False


def test_no_kernel_assigns_a_sequence_to_a_slice_or_row():
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        for function in _compiled_functions(ast.parse(path.read_text(encoding="utf-8"))):
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Assign)
                    and _copies_a_sequence(node)
                    and not isinstance(node.value, ast.Constant)
                ):
                    found.append(f"{path.relative_to(SOURCE)}:{node.lineno} {function.name}: {ast.unparse(node)}")
    assert not found, "use numerics.copying.copy_into or element assignments:\n" + "\n".join(found)


def test_the_check_finds_what_it_looks_for():
    """The check above on a kernel written the slow way (its own counter-example)."""
    slow = ast.parse("@nb.njit\ndef f(a, b):\n    a[:] = b\n    a[0] = (1.0, 2.0)\n    a[0] = 0.0\n")
    assigns = [n for f in _compiled_functions(slow) for n in ast.walk(f) if isinstance(n, ast.Assign)]
    assert [_copies_a_sequence(n) for n in assigns] == [True, True, False]
