/* The FMI 2.0 co-simulation interface of an exported actuator (FMI 2.0 standard, chapters 2 and
 * 4): the common and co-simulation functions; model exchange is not offered. */
#include <string.h>

#include "fmi2_types.h"
#include "instance.h"

#define INST ((alab_instance *)c)
#define NEED_INSTANCE                                                                                            \
    if (c == NULL) return fmi2Error

/* The FMI 2.0 logger is printf-like; messages never contain '%' (instance.c), so they pass as the
 * format itself. */
static void forward_log(const alab_instance *inst, int status, const char *category, const char *message)
{
    fmi2CallbackLogger log = (fmi2CallbackLogger)inst->callback;
    log(inst->env, inst->name, (fmi2Status)status, category, message);
}

static fmi2Status unsupported(fmi2Component c, const char *what)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_fail(INST, ALAB_ERROR, "%s is not supported by this FMU", what);
}

FMI2_EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI2_EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                           const fmi2String categories[])
{
    (void)nCategories; (void)categories;
    NEED_INSTANCE;
    INST->logging_on = loggingOn;
    return fmi2OK;
}

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                          fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn)
{
    alab_instance *inst;
    fmi2CallbackLogger logger = functions != NULL ? functions->logger : NULL;
    void *env = functions != NULL ? functions->componentEnvironment : NULL;
    (void)fmuResourceLocation; (void)visible;
    if (fmuType != fmi2CoSimulation) {
        if (logger != NULL)
            logger(env, instanceName, fmi2Error, "logStatusError", "this FMU supports co-simulation only");
        return NULL;
    }
    if (fmuGUID == NULL || strcmp(fmuGUID, ALAB_TOKEN) != 0) {
        if (logger != NULL)
            logger(env, instanceName, fmi2Error, "logStatusError", "GUID does not match this FMU's binary "
                   "(modelDescription.xml and binary come from different exports)");
        return NULL;
    }
    inst = alab_new(instanceName, env, (alab_any_fn)logger, forward_log, loggingOn);
    if (inst == NULL && logger != NULL) logger(env, instanceName, fmi2Error, "logStatusError", "out of memory");
    return inst;
}

FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    if (c != NULL) alab_free(INST);
}

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                           fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    NEED_INSTANCE;
    if (INST->s.phase != PHASE_INSTANTIATED)
        return (fmi2Status)alab_fail(INST, ALAB_ERROR, "setup experiment: only before initialization");
    INST->s.time = startTime;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_enter_initialization(INST, INST->s.time);
}

FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_exit_initialization(INST);
}

FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_terminate(INST);
}

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    NEED_INSTANCE;
    alab_reset(INST);
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    size_t i;
    int status;
    NEED_INSTANCE;
    for (i = 0; i < nvr; i++) {
        status = alab_get_float64(INST, vr[i], &value[i]);
        if (status != ALAB_OK) return (fmi2Status)status;
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    size_t i;
    int status;
    NEED_INSTANCE;
    for (i = 0; i < nvr; i++) {
        status = alab_set_float64(INST, vr[i], value[i]);
        if (status != ALAB_OK) return (fmi2Status)status;
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Boolean value[])
{
    size_t i;
    int status;
    NEED_INSTANCE;
    for (i = 0; i < nvr; i++) {
        status = alab_get_boolean(INST, vr[i], &value[i]);
        if (status != ALAB_OK) return (fmi2Status)status;
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Boolean value[])
{
    size_t i;
    int status;
    NEED_INSTANCE;
    for (i = 0; i < nvr; i++) {
        status = alab_set_boolean(INST, vr[i], value[i]);
        if (status != ALAB_OK) return (fmi2Status)status;
    }
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Integer value[])
{
    (void)vr; (void)value;
    NEED_INSTANCE;
    return nvr == 0 ? fmi2OK : unsupported(c, "get Integer (the FMU has no Integer variable)");
}

FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Integer value[])
{
    (void)vr; (void)value;
    NEED_INSTANCE;
    return nvr == 0 ? fmi2OK : unsupported(c, "set Integer (the FMU has no Integer variable)");
}

FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    (void)vr; (void)value;
    NEED_INSTANCE;
    return nvr == 0 ? fmi2OK : unsupported(c, "get String (the FMU has no String variable)");
}

FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                     const fmi2String value[])
{
    (void)vr; (void)value;
    NEED_INSTANCE;
    return nvr == 0 ? fmi2OK : unsupported(c, "set String (the FMU has no String variable)");
}

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    NEED_INSTANCE;
    if (FMUstate == NULL) return fmi2Error;
    return (fmi2Status)alab_get_state(INST, FMUstate);
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_set_state(INST, FMUstate);
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    (void)c;
    alab_free_state(FMUstate);
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    (void)FMUstate;
    NEED_INSTANCE;
    *size = alab_state_size();
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                             size_t size)
{
    NEED_INSTANCE;
    if (FMUstate == NULL || size != alab_state_size())
        return (fmi2Status)alab_fail(INST, ALAB_ERROR, "serialize FMU state: buffer of %lu bytes, need %lu",
                                     (unsigned long)size, (unsigned long)alab_state_size());
    memcpy(serializedState, FMUstate, size);
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                               fmi2FMUstate *FMUstate)
{
    NEED_INSTANCE;
    return (fmi2Status)alab_deserialize(INST, (const unsigned char *)serializedState, size, FMUstate);
}

FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                                    size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                                    size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown; (void)dvUnknown;
    return unsupported(c, "directional derivatives");
}

FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    return unsupported(c, "input derivatives");
}

FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    return unsupported(c, "output derivatives");
}

FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    NEED_INSTANCE;
    return (fmi2Status)alab_do_step(INST, currentCommunicationPoint, communicationStepSize);
}

FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component c) { return unsupported(c, "cancel step (steps are synchronous)"); }

FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    NEED_INSTANCE;
    if (s != fmi2DoStepStatus) return unsupported(c, "this status kind");
    *value = INST->s.phase == PHASE_FAILED ? fmi2Error : fmi2OK;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    NEED_INSTANCE;
    if (s != fmi2LastSuccessfulTime) return unsupported(c, "this status kind");
    *value = INST->s.time;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s; (void)value;
    return unsupported(c, "integer status");
}

FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    NEED_INSTANCE;
    if (s != fmi2Terminated) return unsupported(c, "this status kind");
    *value = fmi2False;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    (void)s; (void)value;
    return unsupported(c, "string status");
}
