/* The FMI-independent instance: see instance.h. */
#include "instance.h"
#include "quasistatic.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_start_values(alab_instance *inst)
{
    int i;
    memset(&inst->s, 0, sizeof inst->s);
    inst->s.magic = ALAB_STATE_MAGIC;
    inst->s.size = (unsigned int)sizeof(alab_state);
    inst->s.phase = PHASE_INSTANTIATED;
    for (i = 0; i < N_FLOAT64; i++) inst->s.r[i] = alab_start[i];
    for (i = 0; i < N_BOOLEAN; i++) inst->s.b[i] = alab_start_boolean[i];
}

alab_instance *alab_new(const char *name, void *env, alab_any_fn callback, alab_log_fn log, int logging_on)
{
    alab_instance *inst = (alab_instance *)calloc(1, sizeof(alab_instance));
    if (inst == NULL) return NULL;
    strncpy(inst->name, name != NULL ? name : "actuator", sizeof inst->name - 1);
    inst->env = env;
    inst->callback = callback;
    inst->log = log;
    inst->logging_on = logging_on;
    load_start_values(inst);
    return inst;
}

void alab_free(alab_instance *inst) { free(inst); }

void alab_reset(alab_instance *inst) { load_start_values(inst); }

/* Log a message and return status; an error also moves the instance to PHASE_FAILED, from which
 * only getters, FMU states, reset, terminate and free are allowed. Errors and warnings are
 * always logged; debug messages only with logging on. '%' never reaches the master's logger
 * (FMI 2.0 loggers treat the message as a format). */
static void emit(alab_instance *inst, int status, const char *category, const char *format, va_list args)
{
    char *c;
    vsnprintf(inst->message, sizeof inst->message, format, args);
    for (c = inst->message; *c; c++)
        if (*c == '%') *c = '#';
    if (inst->log != NULL && inst->callback != NULL) inst->log(inst, status, category, inst->message);
}

int alab_fail(alab_instance *inst, int status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    emit(inst, status, status >= ALAB_ERROR ? "logStatusError" : "logStatusWarning", format, args);
    va_end(args);
    if (status >= ALAB_ERROR) inst->s.phase = PHASE_FAILED;
    return status;
}

void alab_debug(alab_instance *inst, const char *format, ...)
{
    va_list args;
    if (!inst->logging_on) return;
    va_start(args, format);
    emit(inst, ALAB_OK, "logEvents", format, args);
    va_end(args);
}

/* Whether value is allowed for variable vr by its rule (model.h); writes the message if not. */
static int check_value(alab_instance *inst, int vr, double value)
{
    const char *name = alab_names[vr], *unit = alab_units[vr];
    switch (alab_rules[vr]) {
    case 'P':
        if (!(value > 0.0 && isfinite(value)))
            return alab_fail(inst, ALAB_ERROR, "%s = %.17g %s: must be finite and > 0", name, value, unit);
        break;
    case 'N':
        if (!(value >= 0.0 && isfinite(value)))
            return alab_fail(inst, ALAB_ERROR, "%s = %.17g %s: must be finite and >= 0", name, value, unit);
        break;
    case 'R':
        if (!(value >= alab_low[vr] && value <= alab_high[vr]))
            return alab_fail(inst, ALAB_ERROR, "%s = %.17g: must lie in [%g, %g]", name, value, alab_low[vr],
                             alab_high[vr]);
        break;
    case 'F':
        if (!isfinite(value))
            return alab_fail(inst, ALAB_ERROR, "%s = %.17g %s: must be finite", name, value, unit);
        break;
    default:
        break;
    }
    return ALAB_OK;
}

int alab_set_float64(alab_instance *inst, unsigned int vr, double value)
{
    int phase = inst->s.phase;
    if (vr >= N_FLOAT64)
        return alab_fail(inst, ALAB_ERROR, "set: no Float64 variable has value reference %u", vr);
    switch (alab_causality[vr]) {
    case ALAB_PARAMETER:
        if (phase != PHASE_INSTANTIATED && phase != PHASE_INITIALIZATION)
            return alab_fail(inst, ALAB_ERROR, "set %s: a fixed parameter can only be set before the end of "
                             "initialization (reset the instance to change it)", alab_names[vr]);
        break;
    case ALAB_INPUT:
        if (phase == PHASE_TERMINATED || phase == PHASE_FAILED)
            return alab_fail(inst, ALAB_ERROR, "set %s: the instance is %s", alab_names[vr],
                             phase == PHASE_FAILED ? "in an error state (reset it)" : "terminated");
        break;
    default:
        return alab_fail(inst, ALAB_ERROR, "set %s: an %s cannot be set", alab_names[vr],
                         alab_causality[vr] == ALAB_OUTPUT ? "output" : "independent variable");
    }
    inst->s.r[vr] = value;
    return ALAB_OK;
}

int alab_get_float64(alab_instance *inst, unsigned int vr, double *value)
{
    if (vr >= N_FLOAT64)
        return alab_fail(inst, ALAB_ERROR, "get: no Float64 variable has value reference %u", vr);
    if (vr == 0) {
        *value = inst->s.time;
        return ALAB_OK;
    }
    if (alab_causality[vr] == ALAB_OUTPUT && (inst->s.phase == PHASE_INSTANTIATED ||
                                              inst->s.phase == PHASE_INITIALIZATION)) {
        /* outputs during initialization: those of the start state for the current inputs */
        alab_state saved = inst->s;
        int status = model_check(inst);
        if (status == ALAB_OK) status = model_start(inst);
        if (status == ALAB_OK) model_outputs(inst);
        *value = inst->s.r[vr];
        inst->s = saved;
        if (status != ALAB_OK) inst->s.phase = PHASE_FAILED;
        return status;
    }
    *value = inst->s.r[vr];
    return ALAB_OK;
}

int alab_set_boolean(alab_instance *inst, unsigned int vr, int value)
{
    if (vr < N_FLOAT64 || vr >= N_VARIABLES)
        return alab_fail(inst, ALAB_ERROR, "set: no Boolean variable has value reference %u", vr);
    if (inst->s.phase != PHASE_INSTANTIATED && inst->s.phase != PHASE_INITIALIZATION)
        return alab_fail(inst, ALAB_ERROR, "set %s: a fixed parameter can only be set before the end of "
                         "initialization", alab_names[vr]);
    inst->s.b[vr - N_FLOAT64] = value != 0;
    return ALAB_OK;
}

int alab_get_boolean(alab_instance *inst, unsigned int vr, int *value)
{
    if (vr < N_FLOAT64 || vr >= N_VARIABLES)
        return alab_fail(inst, ALAB_ERROR, "get: no Boolean variable has value reference %u", vr);
    *value = inst->s.b[vr - N_FLOAT64];
    return ALAB_OK;
}

int alab_enter_initialization(alab_instance *inst, double start_time)
{
    if (inst->s.phase != PHASE_INSTANTIATED)
        return alab_fail(inst, ALAB_ERROR, "enter initialization: only right after instantiation or reset");
    if (!isfinite(start_time))
        return alab_fail(inst, ALAB_ERROR, "enter initialization: start time %g is not finite", start_time);
    inst->s.time = start_time;
    inst->s.phase = PHASE_INITIALIZATION;
    return ALAB_OK;
}

static int check_all(alab_instance *inst)
{
    int vr, status;
    for (vr = 1; vr < N_FLOAT64; vr++) {
        if (alab_causality[vr] != ALAB_PARAMETER && alab_causality[vr] != ALAB_INPUT) continue;
        status = check_value(inst, vr, inst->s.r[vr]);
        if (status != ALAB_OK) return status;
    }
    return ALAB_OK;
}

int alab_exit_initialization(alab_instance *inst)
{
    int status;
    if (inst->s.phase != PHASE_INITIALIZATION)
        return alab_fail(inst, ALAB_ERROR, "exit initialization: enter initialization mode first");
    status = check_all(inst);
    if (status == ALAB_OK) status = model_check(inst);
    if (status == ALAB_OK) status = model_start(inst);
    if (status != ALAB_OK) return status;
    model_outputs(inst);
    inst->s.phase = PHASE_STEP;
    alab_debug(inst, "initialized at t = %g s", inst->s.time);
    return ALAB_OK;
}

int alab_do_step(alab_instance *inst, double t, double h)
{
    int vr, status;
    if (inst->s.phase != PHASE_STEP)
        return alab_fail(inst, ALAB_ERROR, "do step: %s", inst->s.phase == PHASE_FAILED
                         ? "the instance is in an error state after an earlier failure (reset it or restore an FMU state)"
                         : "only after initialization and before termination");
    if (!(h > 0.0 && isfinite(h)) || !isfinite(t))
        return alab_fail(inst, ALAB_ERROR, "do step at t = %g s: the communication step %g s must be finite and > 0",
                         t, h);
    for (vr = ALAB_FIRST_INPUT; vr <= ALAB_LAST_INPUT; vr++) {
        status = check_value(inst, vr, inst->s.r[vr]);
        if (status != ALAB_OK) return status;
    }
    status = model_step(inst, t, h);
    if (status != ALAB_OK) return status;
    inst->s.time = t + h;
    inst->s.steps += 1.0;
    return ALAB_OK;
}

int alab_terminate(alab_instance *inst)
{
    inst->s.phase = PHASE_TERMINATED;
    return ALAB_OK;
}

int alab_get_state(alab_instance *inst, void **state)
{
    alab_state *copy = (alab_state *)(*state != NULL ? *state : malloc(sizeof(alab_state)));
    if (copy == NULL) return alab_fail(inst, ALAB_ERROR, "get FMU state: out of memory");
    *copy = inst->s;
    *state = copy;
    return ALAB_OK;
}

int alab_set_state(alab_instance *inst, const void *state)
{
    const alab_state *s = (const alab_state *)state;
    if (s == NULL || s->magic != ALAB_STATE_MAGIC || s->size != sizeof(alab_state))
        return alab_fail(inst, ALAB_ERROR, "set FMU state: not a state of this FMU");
    inst->s = *s;
    return ALAB_OK;
}

void alab_free_state(void **state)
{
    if (state != NULL) {
        free(*state);
        *state = NULL;
    }
}

size_t alab_state_size(void) { return sizeof(alab_state); }

int alab_deserialize(alab_instance *inst, const unsigned char *bytes, size_t size, void **state)
{
    alab_state s;
    if (bytes == NULL || size != sizeof(alab_state))
        return alab_fail(inst, ALAB_ERROR, "deserialize FMU state: %lu bytes, expected %lu (a state of another FMU?)",
                         (unsigned long)size, (unsigned long)sizeof(alab_state));
    memcpy(&s, bytes, sizeof s);
    if (s.magic != ALAB_STATE_MAGIC || s.size != sizeof(alab_state))
        return alab_fail(inst, ALAB_ERROR, "deserialize FMU state: not a state of this FMU");
    if (*state == NULL) *state = malloc(sizeof(alab_state));
    if (*state == NULL) return alab_fail(inst, ALAB_ERROR, "deserialize FMU state: out of memory");
    memcpy(*state, &s, sizeof s);
    return ALAB_OK;
}

/* The circuit vector (66) of the kernels (layout I_* of quasistatic.h) from the circuit's
 * parameters, c_* = C_* a_* sqrt(2/rho); refuses rod_area >= head_area. Both models use it. */
int alab_circuit_vector(alab_instance *inst, double *cp)
{
    const double *r = inst->s.r;
    double root;
    if (!(r[VR_CIRCUIT_ROD_AREA] < r[VR_CIRCUIT_HEAD_AREA]))
        return alab_fail(inst, ALAB_ERROR, "circuit.rod_area = %g m2 >= circuit.head_area = %g m2: the rod-side "
                         "(annulus) area of a single-rod cylinder is the piston area less the rod's; give "
                         "rod_area < head_area", r[VR_CIRCUIT_ROD_AREA], r[VR_CIRCUIT_HEAD_AREA]);
    root = sqrt(2.0 / r[VR_CIRCUIT_OIL_DENSITY]);
    cp[I_AH] = r[VR_CIRCUIT_HEAD_AREA];
    cp[I_AR] = r[VR_CIRCUIT_ROD_AREA];
    cp[I_FHM] = r[VR_CIRCUIT_HEAD_AREA] * r[VR_CIRCUIT_HEAD_RELIEF_PRESSURE];
    cp[I_FRM] = r[VR_CIRCUIT_ROD_AREA] * r[VR_CIRCUIT_ROD_RELIEF_PRESSURE];
    cp[I_PM] = r[VR_CIRCUIT_PUMP_RELIEF_PRESSURE];
    cp[I_Q] = r[VR_CIRCUIT_PUMP_FLOW];
    cp[I_CPH] = r[VR_CIRCUIT_DISCHARGE_COEFFICIENT_PH] * r[VR_CIRCUIT_MAX_AREA_PH] * root;
    cp[I_CTR] = r[VR_CIRCUIT_DISCHARGE_COEFFICIENT_TR] * r[VR_CIRCUIT_MAX_AREA_TR] * root;
    cp[I_CPR] = r[VR_CIRCUIT_DISCHARGE_COEFFICIENT_PR] * r[VR_CIRCUIT_MAX_AREA_PR] * root;
    cp[I_CTH] = r[VR_CIRCUIT_DISCHARGE_COEFFICIENT_TH] * r[VR_CIRCUIT_MAX_AREA_TH] * root;
    cp[I_CB] = r[VR_CIRCUIT_DISCHARGE_COEFFICIENT_B] * r[VR_CIRCUIT_MAX_AREA_B] * root;
    cp[I_CA] = r[VR_CIRCUIT_REGENERATION_DISCHARGE_COEFFICIENT] * r[VR_CIRCUIT_REGENERATION_MAX_AREA] * root;
    return ALAB_OK;
}
