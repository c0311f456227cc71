/* The FMI 3.0 co-simulation interface of an exported actuator (FMI 3.0 standard, chapters 2 and
 * 4): every function of the standard is defined, those a co-simulation FMU without clocks, events
 * or derivatives does not offer return fmi3Error with a message. */
#include <string.h>

#include "fmi3_types.h"
#include "instance.h"

#define INST ((alab_instance *)instance)
#define NEED_INSTANCE                                                                                            \
    if (instance == NULL) return fmi3Error

static void forward_log(const alab_instance *inst, int status, const char *category, const char *message)
{
    fmi3LogMessageCallback log = (fmi3LogMessageCallback)inst->callback;
    log(inst->env, (fmi3Status)status, category, message);
}

static fmi3Status unsupported(fmi3Instance instance, const char *what)
{
    NEED_INSTANCE;
    return (fmi3Status)alab_fail(INST, ALAB_ERROR, "%s is not supported by this FMU (co-simulation only, no clocks, "
                                 "events or derivatives)", what);
}

FMI3_EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[])
{
    (void)nCategories;
    (void)categories;
    NEED_INSTANCE;
    INST->logging_on = loggingOn;
    return fmi3OK;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                      fmi3String resourcePath, fmi3Boolean visible,
                                                      fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage)
{
    (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    if (logMessage != NULL)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError", "model exchange is not supported by this FMU "
                   "(co-simulation only)");
    (void)instanceName;
    return NULL;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate)
{
    alab_instance *inst;
    (void)resourcePath; (void)visible; (void)eventModeUsed; (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables; (void)nRequiredIntermediateVariables; (void)intermediateUpdate;
    if (instantiationToken == NULL || strcmp(instantiationToken, ALAB_TOKEN) != 0) {
        if (logMessage != NULL)
            logMessage(instanceEnvironment, fmi3Error, "logStatusError", "instantiation token does not match this "
                       "FMU's binary (modelDescription.xml and binary come from different exports)");
        return NULL;
    }
    inst = alab_new(instanceName, instanceEnvironment, (alab_any_fn)logMessage, forward_log, loggingOn);
    if (inst == NULL && logMessage != NULL)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError", "out of memory");
    return inst;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    if (logMessage != NULL)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError", "scheduled execution is not supported by this "
                   "FMU (co-simulation only)");
    return NULL;
}

FMI3_EXPORT void fmi3FreeInstance(fmi3Instance instance)
{
    if (instance != NULL) alab_free(INST);
}

FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    NEED_INSTANCE;
    return (fmi3Status)alab_enter_initialization(INST, startTime);
}

FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    NEED_INSTANCE;
    return (fmi3Status)alab_exit_initialization(INST);
}

FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance instance) { return unsupported(instance, "event mode"); }

FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance instance)
{
    NEED_INSTANCE;
    return (fmi3Status)alab_terminate(INST);
}

FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance instance)
{
    NEED_INSTANCE;
    alab_reset(INST);
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    size_t i;
    int status;
    NEED_INSTANCE;
    if (nValues != nValueReferences)
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "get Float64: %lu values for %lu scalar variables",
                                     (unsigned long)nValues, (unsigned long)nValueReferences);
    for (i = 0; i < nValueReferences; i++) {
        status = alab_get_float64(INST, valueReferences[i], &values[i]);
        if (status != ALAB_OK) return (fmi3Status)status;
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    size_t i;
    int status;
    NEED_INSTANCE;
    if (nValues != nValueReferences)
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "set Float64: %lu values for %lu scalar variables",
                                     (unsigned long)nValues, (unsigned long)nValueReferences);
    for (i = 0; i < nValueReferences; i++) {
        status = alab_set_float64(INST, valueReferences[i], values[i]);
        if (status != ALAB_OK) return (fmi3Status)status;
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Boolean values[], size_t nValues)
{
    size_t i;
    int status, value;
    NEED_INSTANCE;
    if (nValues != nValueReferences)
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "get Boolean: %lu values for %lu scalar variables",
                                     (unsigned long)nValues, (unsigned long)nValueReferences);
    for (i = 0; i < nValueReferences; i++) {
        status = alab_get_boolean(INST, valueReferences[i], &value);
        if (status != ALAB_OK) return (fmi3Status)status;
        values[i] = value != 0;
    }
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Boolean values[], size_t nValues)
{
    size_t i;
    int status;
    NEED_INSTANCE;
    if (nValues != nValueReferences)
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "set Boolean: %lu values for %lu scalar variables",
                                     (unsigned long)nValues, (unsigned long)nValueReferences);
    for (i = 0; i < nValueReferences; i++) {
        status = alab_set_boolean(INST, valueReferences[i], values[i]);
        if (status != ALAB_OK) return (fmi3Status)status;
    }
    return fmi3OK;
}

/* Getters and setters of types this FMU has no variable of. */
#define NO_VARIABLES_OF(T, name)                                                                                  \
    FMI3_EXPORT fmi3Status fmi3Get##name(fmi3Instance instance, const fmi3ValueReference valueReferences[],     \
                                         size_t nValueReferences, T values[], size_t nValues)                   \
    {                                                                                                            \
        (void)valueReferences; (void)values; (void)nValues;                                                      \
        NEED_INSTANCE;                                                                                           \
        if (nValueReferences == 0) return fmi3OK;                                                                \
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "get " #name ": this FMU has no variable of that type");  \
    }                                                                                                            \
    FMI3_EXPORT fmi3Status fmi3Set##name(fmi3Instance instance, const fmi3ValueReference valueReferences[],     \
                                         size_t nValueReferences, const T values[], size_t nValues)             \
    {                                                                                                            \
        (void)valueReferences; (void)values; (void)nValues;                                                      \
        NEED_INSTANCE;                                                                                           \
        if (nValueReferences == 0) return fmi3OK;                                                                \
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "set " #name ": this FMU has no variable of that type");  \
    }

NO_VARIABLES_OF(fmi3Float32, Float32)
NO_VARIABLES_OF(fmi3Int8, Int8)
NO_VARIABLES_OF(fmi3UInt8, UInt8)
NO_VARIABLES_OF(fmi3Int16, Int16)
NO_VARIABLES_OF(fmi3UInt16, UInt16)
NO_VARIABLES_OF(fmi3Int32, Int32)
NO_VARIABLES_OF(fmi3UInt32, UInt32)
NO_VARIABLES_OF(fmi3Int64, Int64)
NO_VARIABLES_OF(fmi3UInt64, UInt64)
NO_VARIABLES_OF(fmi3String, String)

FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, size_t valueSizes[], fmi3Binary values[], size_t nValues)
{
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    NEED_INSTANCE;
    if (nValueReferences == 0) return fmi3OK;
    return unsupported(instance, "get Binary");
}

FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const size_t valueSizes[], const fmi3Binary values[],
                                     size_t nValues)
{
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    NEED_INSTANCE;
    if (nValueReferences == 0) return fmi3OK;
    return unsupported(instance, "set Binary");
}

FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Clock values[])
{
    (void)valueReferences; (void)nValueReferences; (void)values;
    return unsupported(instance, "get Clock");
}

FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Clock values[])
{
    (void)valueReferences; (void)nValueReferences; (void)values;
    return unsupported(instance, "set Clock");
}

FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                                           size_t *nDependencies)
{
    (void)valueReference; (void)nDependencies;
    return unsupported(instance, "variable dependencies");
}

FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[],
                                                   fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
    (void)dependent; (void)elementIndicesOfDependent; (void)independents; (void)elementIndicesOfIndependents;
    (void)dependencyKinds; (void)nDependencies;
    return unsupported(instance, "variable dependencies");
}

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    NEED_INSTANCE;
    if (FMUState == NULL) return fmi3Error;
    return (fmi3Status)alab_get_state(INST, FMUState);
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    NEED_INSTANCE;
    return (fmi3Status)alab_set_state(INST, FMUState);
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    (void)instance;
    alab_free_state(FMUState);
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    (void)FMUState;
    NEED_INSTANCE;
    *size = alab_state_size();
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                             fmi3Byte serializedState[], size_t size)
{
    NEED_INSTANCE;
    if (FMUState == NULL || size != alab_state_size())
        return (fmi3Status)alab_fail(INST, ALAB_ERROR, "serialize FMU state: buffer of %lu bytes, need %lu",
                                     (unsigned long)size, (unsigned long)alab_state_size());
    memcpy(serializedState, FMUState, size);
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState)
{
    NEED_INSTANCE;
    return (fmi3Status)alab_deserialize(INST, serializedState, size, FMUState);
}

FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed; (void)sensitivity;
    (void)nSensitivity;
    return unsupported(instance, "directional derivatives");
}

FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                size_t nUnknowns, const fmi3ValueReference knowns[], size_t nKnowns,
                                                const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
                                                size_t nSensitivity)
{
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed; (void)sensitivity;
    (void)nSensitivity;
    return unsupported(instance, "adjoint derivatives");
}

FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    return unsupported(instance, "configuration mode (the FMU has no structural parameters)");
}

FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    return unsupported(instance, "configuration mode (the FMU has no structural parameters)");
}

FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[])
{
    (void)valueReferences; (void)nValueReferences; (void)intervals; (void)qualifiers;
    return unsupported(instance, "clock intervals");
}

FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[])
{
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions; (void)qualifiers;
    return unsupported(instance, "clock intervals");
}

FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Float64 shifts[])
{
    (void)valueReferences; (void)nValueReferences; (void)shifts;
    return unsupported(instance, "clock shifts");
}

FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(instance, "clock shifts");
}

FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, const fmi3Float64 intervals[])
{
    (void)valueReferences; (void)nValueReferences; (void)intervals;
    return unsupported(instance, "clock intervals");
}

FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[])
{
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(instance, "clock intervals");
}

FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, const fmi3Float64 shifts[])
{
    (void)valueReferences; (void)nValueReferences; (void)shifts;
    return unsupported(instance, "clock shifts");
}

FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[])
{
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(instance, "clock shifts");
}

FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    return unsupported(instance, "discrete states");
}

FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate; (void)terminateSimulation; (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged; (void)nextEventTimeDefined; (void)nextEventTime;
    return unsupported(instance, "discrete states");
}

FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint; (void)enterEventMode; (void)terminateSimulation;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    (void)time;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates)
{
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                                         size_t nContinuousStates)
{
    (void)derivatives; (void)nContinuousStates;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators)
{
    (void)eventIndicators; (void)nEventIndicators;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                               size_t nContinuousStates)
{
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                                         size_t nContinuousStates)
{
    (void)nominals; (void)nContinuousStates;
    return unsupported(instance, "model exchange");
}

FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    NEED_INSTANCE;
    *nEventIndicators = 0;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    NEED_INSTANCE;
    *nContinuousStates = 0;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    NEED_INSTANCE;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences; (void)nValueReferences; (void)orders; (void)values; (void)nValues;
    return unsupported(instance, "output derivatives");
}

FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                                  fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    int status;
    (void)noSetFMUStatePriorToCurrentPoint;
    NEED_INSTANCE;
    status = alab_do_step(INST, currentCommunicationPoint, communicationStepSize);
    if (eventHandlingNeeded != NULL) *eventHandlingNeeded = false;
    if (terminateSimulation != NULL) *terminateSimulation = false;
    if (earlyReturn != NULL) *earlyReturn = false;
    if (lastSuccessfulTime != NULL) *lastSuccessfulTime = INST->s.time;
    return (fmi3Status)status;
}

FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime)
{
    (void)clockReference; (void)activationTime;
    return unsupported(instance, "scheduled execution");
}
