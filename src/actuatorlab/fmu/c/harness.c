/* A small C master for an exported FMI 3.0 FMU of actuatorlab: loads the binary with dlopen (no
 * Python anywhere), instantiates N instances, drives each with a sinusoidal cylinder length and
 * valve command for M communication steps, and prints the time per doStep.
 *
 * Build against an extracted FMU (its sources/ give model.h with the value references and token):
 *   cc -std=c99 -O2 -Isources harness.c -o harness -ldl -lm
 *   ./harness binaries/x86_64-linux/NAME.so STEPS INSTANCES [bad]
 * "bad" sets a negative head area before initialization and expects an error status, not a crash.
 * At the end each instance's FMU state is taken, serialized, deserialized and set, and the instance reset.
 * Output: one line "steps=… instances=… ns_per_step=… ns_per_dostep=… failures=… checksum=…": ns_per_step
 * is set inputs + doStep + get force; ns_per_dostep subtracts the same loop without doStep. */
#define _POSIX_C_SOURCE 199309L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi3_types.h"
#include "model.h"

#define CYCLE 4096

typedef fmi3Instance (*instantiate_fn)(fmi3String, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean, fmi3Boolean,
                                       fmi3Boolean, const fmi3ValueReference[], size_t, fmi3InstanceEnvironment,
                                       fmi3LogMessageCallback, fmi3IntermediateUpdateCallback);
typedef fmi3Status (*enter_init_fn)(fmi3Instance, fmi3Boolean, fmi3Float64, fmi3Float64, fmi3Boolean, fmi3Float64);
typedef fmi3Status (*instance_fn)(fmi3Instance);
typedef void (*free_fn)(fmi3Instance);
typedef fmi3Status (*set_fn)(fmi3Instance, const fmi3ValueReference[], size_t, const fmi3Float64[], size_t);
typedef fmi3Status (*get_fn)(fmi3Instance, const fmi3ValueReference[], size_t, fmi3Float64[], size_t);
typedef fmi3Status (*state_fn)(fmi3Instance, fmi3FMUState *);
typedef fmi3Status (*set_state_fn)(fmi3Instance, fmi3FMUState);
typedef fmi3Status (*size_fn)(fmi3Instance, fmi3FMUState, size_t *);
typedef fmi3Status (*serialize_fn)(fmi3Instance, fmi3FMUState, fmi3Byte[], size_t);
typedef fmi3Status (*deserialize_fn)(fmi3Instance, const fmi3Byte[], size_t, fmi3FMUState *);
typedef fmi3Status (*step_fn)(fmi3Instance, fmi3Float64, fmi3Float64, fmi3Boolean, fmi3Boolean *, fmi3Boolean *,
                              fmi3Boolean *, fmi3Float64 *);

static int logged = 0;
static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category, fmi3String message)
{
    (void)env;
    if (logged++ < 5) fprintf(stderr, "[%d %s] %s\n", (int)status, category, message);
}

/* CPU time of this process: a step's cost without the time the scheduler gives other processes. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

#define LOAD(type, name) type name = (type)(void (*)(void))dlsym_checked(lib, #name)
static void *lib_handle;
static void (*dlsym_checked(void *lib, const char *name))(void)
{
    void *p = dlsym(lib, name);
    void (*f)(void);
    if (p == NULL) {
        fprintf(stderr, "missing symbol %s\n", name);
        exit(1);
    }
    memcpy(&f, &p, sizeof f);
    return f;
}

int main(int argc, char **argv)
{
    long steps, n, i, k, failures = 0;
    int bad;
    double h = 1e-3, t, t0, t_all = 0.0, t_step = 0.0, checksum = 0.0, baseline = 0.0;
    static double length[CYCLE], command[CYCLE];
    fmi3Instance *inst;
    fmi3ValueReference in[2] = {VR_LENGTH, VR_VALVE_COMMAND}, out[1] = {VR_FORCE}, head[1] = {VR_CIRCUIT_HEAD_AREA};
    fmi3Float64 u[2], f[1], negative[1] = {-0.024};
    void *lib;
    if (argc < 4) {
        fprintf(stderr, "usage: %s LIBRARY STEPS INSTANCES [bad]\n", argv[0]);
        return 2;
    }
    steps = atol(argv[2]);
    n = atol(argv[3]);
    bad = argc > 4 && strcmp(argv[4], "bad") == 0;
    lib = lib_handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    {
        LOAD(instantiate_fn, fmi3InstantiateCoSimulation);
        LOAD(enter_init_fn, fmi3EnterInitializationMode);
        LOAD(instance_fn, fmi3ExitInitializationMode);
        LOAD(instance_fn, fmi3Terminate);
        LOAD(free_fn, fmi3FreeInstance);
        LOAD(set_fn, fmi3SetFloat64);
        LOAD(get_fn, fmi3GetFloat64);
        LOAD(step_fn, fmi3DoStep);
        LOAD(state_fn, fmi3GetFMUState);
        LOAD(set_state_fn, fmi3SetFMUState);
        LOAD(state_fn, fmi3FreeFMUState);
        LOAD(size_fn, fmi3SerializedFMUStateSize);
        LOAD(serialize_fn, fmi3SerializeFMUState);
        LOAD(deserialize_fn, fmi3DeserializeFMUState);
        LOAD(instance_fn, fmi3Reset);
        inst = (fmi3Instance *)calloc((size_t)n, sizeof *inst);
        for (i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, "actuator%ld", i);
            inst[i] = fmi3InstantiateCoSimulation(name, ALAB_TOKEN, NULL, 0, 0, 0, 0, NULL, 0, NULL, logger, NULL);
            if (inst[i] == NULL) return 1;
            if (bad) fmi3SetFloat64(inst[i], head, 1, negative, 1);
            fmi3EnterInitializationMode(inst[i], 0, 0.0, 0.0, 0, 0.0);
            if (fmi3ExitInitializationMode(inst[i]) != fmi3OK) failures++;
        }
        /* inputs precomputed (a cycle of CYCLE samples), so the loops time the FMU, not sin() */
        for (k = 0; k < CYCLE; k++) {
            length[k] = alab_start[VR_LENGTH] + 0.02 * sin(3.0 * k * h);
            command[k] = 0.5 * sin(0.7 * k * h);
        }
        t0 = now();
        for (k = 0; k < steps && !bad; k++) {
            t = k * h;
            for (i = 0; i < n; i++) {
                fmi3Boolean event, terminate, early;
                fmi3Float64 last;
                u[0] = length[(k + i) & (CYCLE - 1)];
                u[1] = command[(k + 7 * i) & (CYCLE - 1)];
                fmi3SetFloat64(inst[i], in, 2, u, 2);
                if (fmi3DoStep(inst[i], t, h, 1, &event, &terminate, &early, &last) != fmi3OK) failures++;
                fmi3GetFloat64(inst[i], out, 1, f, 1);
                checksum += f[0];
            }
        }
        t_all = now() - t0;
        /* the same loop without doStep: the cost of the set and get calls, subtracted below */
        t0 = now();
        for (k = 0; k < steps && !bad; k++) {
            for (i = 0; i < n; i++) {
                u[0] = length[(k + i) & (CYCLE - 1)];
                u[1] = command[(k + 7 * i) & (CYCLE - 1)];
                fmi3SetFloat64(inst[i], in, 2, u, 2);
                fmi3GetFloat64(inst[i], out, 1, f, 1);
                baseline += f[0];
            }
        }
        t_step = now() - t0;
        /* FMU states of every instance: get, serialize, deserialize, set, free; then reset */
        for (i = 0; i < n && !bad; i++) {
            fmi3FMUState state = NULL, copy = NULL;
            size_t size = 0;
            fmi3Byte *bytes;
            if (fmi3GetFMUState(inst[i], &state) != fmi3OK) failures++;
            if (fmi3SerializedFMUStateSize(inst[i], state, &size) != fmi3OK) failures++;
            bytes = (fmi3Byte *)malloc(size);
            if (fmi3SerializeFMUState(inst[i], state, bytes, size) != fmi3OK) failures++;
            if (fmi3DeserializeFMUState(inst[i], bytes, size, &copy) != fmi3OK) failures++;
            if (fmi3SetFMUState(inst[i], copy) != fmi3OK) failures++;
            free(bytes);
            fmi3FreeFMUState(inst[i], &state);
            fmi3FreeFMUState(inst[i], &copy);
            if (fmi3Reset(inst[i]) != fmi3OK) failures++;
        }
        for (i = 0; i < n; i++) {
            fmi3Terminate(inst[i]);
            fmi3FreeInstance(inst[i]);
        }
        free(inst);
    }
    dlclose(lib);
    printf("steps=%ld instances=%ld ns_per_step=%.1f ns_per_dostep=%.1f failures=%ld checksum=%.17g\n", steps, n,
           steps * n > 0 ? 1e9 * t_all / (double)(steps * n) : 0.0,
           steps * n > 0 ? 1e9 * (t_all - t_step) / (double)(steps * n) : 0.0, failures, checksum + 0.0 * baseline);
    return 0;
}
