/* launch.h: `ntop-js -- node app.js`: start a program as it is (no inspector option, its
 * environment untouched, so that none of its descendants inherits one), find the node process
 * to attach to, keep the program's output off the screen (in a log file), and end it when
 * ntop-js quits. Its inspector is opened by attach, by signal, as for --pid. */
#ifndef NTOP_LAUNCH_H
#define NTOP_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch;

/* Starts argv (argv[0] found on PATH) in a process group of its own (so the terminal's Ctrl-C
 * reaches only ntop-js), stdin from /dev/null, stdout and stderr appended to log_fd (the log
 * file the caller created exclusively, 0600, O_APPEND; launch_start takes it over, log_path
 * only names it in messages), with ntop-js's environment as it is. Then waits, at most timeout_s, for the process
 * (or, for a wrapper like sh or npm, its node descendant) to install Node's SIGUSR1 handler.
 * Returns NULL with *cause (one sentence) if it cannot start, exits early (the cause names the
 * log), or no Node process appears in time; the program is then ended. */
struct launch *launch_start(char *const *argv, int log_fd, const char *log_path,
	double timeout_s, char **cause);
/* The PID to attach to: the node process the user means (its SIGUSR1 handler installed, unless
 * the wait ran out: attach then says why it cannot be signalled). */
pid_t launch_target_pid(const struct launch *l);
pid_t launch_child_pid(const struct launch *l);
const char *launch_log_path(const struct launch *l);
/* True (and *status set, as from waitpid) once the started program has exited. */
bool launch_exited(struct launch *l, int *status);
/* Ends the program: SIGTERM to its process group, then SIGKILL after grace_s. Frees l. */
void launch_stop(struct launch *l, double grace_s);

#endif
