/* One instance of an exported actuator, independent of the FMI version: its variables (by
 * value reference, as in model.h), its state, its phase, checks and logging. fmi3.c and fmi2.c
 * wrap it in the two standards' calling conventions; model_*.c step the physics.
 *
 * Nothing here allocates after instantiation, keeps global state, or calls exit(): instances
 * are independent (several per process), and every failure is a status with a logged message. */
#ifndef ALAB_INSTANCE_H
#define ALAB_INSTANCE_H

#include <stddef.h>

#include "model.h"

enum { ALAB_OK = 0, ALAB_WARNING = 1, ALAB_DISCARD = 2, ALAB_ERROR = 3, ALAB_FATAL = 4 };
enum { PHASE_INSTANTIATED = 0, PHASE_INITIALIZATION, PHASE_STEP, PHASE_TERMINATED, PHASE_FAILED };
#define ALAB_MODEL_STATE 16
#define ALAB_DERIVED 32

struct alab_instance_s;
typedef void (*alab_any_fn)(void); /* a function pointer of any type, cast back before the call */
/* Passes a message to the master's logger (fmi3.c, fmi2.c adapt it to their standard's callback). */
typedef void (*alab_log_fn)(const struct alab_instance_s *inst, int status, const char *category,
                            const char *message);

/* Everything that changes while an instance runs: what FMU states copy and serialize. */
typedef struct {
    unsigned int magic;                 /* ALAB_STATE_MAGIC: recognises a serialized state */
    unsigned int size;                  /* sizeof(alab_state) */
    int phase;
    double time;
    double r[N_FLOAT64];                /* every Float64 variable by value reference */
    int b[N_BOOLEAN > 0 ? N_BOOLEAN : 1];
    double derived[ALAB_DERIVED];       /* from the parameters at the end of initialization */
    double x[ALAB_MODEL_STATE];         /* the model's own state (model_*.c) */
    double steps;                       /* communication steps done */
} alab_state;

typedef struct alab_instance_s {
    alab_state s;
    char name[128];
    void *env;                          /* the master's instance environment */
    alab_any_fn callback;               /* the master's logger, called through log */
    alab_log_fn log;
    int logging_on;
    char message[1024];
} alab_instance;

#define ALAB_STATE_MAGIC 0x414c4142u /* "ALAB" */

alab_instance *alab_new(const char *name, void *env, alab_any_fn callback, alab_log_fn log, int logging_on);
void alab_free(alab_instance *inst);
void alab_reset(alab_instance *inst);
int alab_fail(alab_instance *inst, int status, const char *format, ...);
void alab_debug(alab_instance *inst, const char *format, ...);

int alab_set_float64(alab_instance *inst, unsigned int vr, double value);
int alab_get_float64(alab_instance *inst, unsigned int vr, double *value);
int alab_set_boolean(alab_instance *inst, unsigned int vr, int value);
int alab_get_boolean(alab_instance *inst, unsigned int vr, int *value);

int alab_enter_initialization(alab_instance *inst, double start_time);
int alab_exit_initialization(alab_instance *inst);
int alab_do_step(alab_instance *inst, double t, double h);
int alab_terminate(alab_instance *inst);

/* FMU states: a copy of alab_state; serialized as its bytes after a check of magic and size. */
int alab_get_state(alab_instance *inst, void **state);
int alab_set_state(alab_instance *inst, const void *state);
void alab_free_state(void **state);
size_t alab_state_size(void);
int alab_deserialize(alab_instance *inst, const unsigned char *bytes, size_t size, void **state);

/* The model (model_quasistatic.c or model_pressure.c). */
int alab_circuit_vector(alab_instance *inst, double *cp); /* the circuit vector (66); instance.c */
int model_check(alab_instance *inst);          /* parameters beyond one-by-one rules; fills derived */
int model_start(alab_instance *inst);          /* the state at the end of initialization */
int model_step(alab_instance *inst, double t, double h);
void model_outputs(alab_instance *inst);       /* outputs of the current state */

#endif
