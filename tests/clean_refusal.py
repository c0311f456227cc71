"""The check both fuzz tests make of a command that did not succeed (issue 17)."""


def assert_clean_refusal(result, out, where: str) -> None:
    """``result`` (a CliRunner result) exited 2 with at most three lines starting "error:", no
    traceback or numpy repr, and left no output folder ``out``."""
    assert result.exit_code == 2, f"{where}: exit {result.exit_code}\n{result.output}\n{result.exception!r}"
    message = result.output.strip()
    assert message.startswith("error:") and len(message.splitlines()) <= 3, f"{where}: {message}"
    assert "np.float64" not in message and "Traceback" not in message, f"{where}: {message}"
    assert not out.exists(), f"{where}: a failed run left {out}"
