/* exitcode.h: ntop-js exit statuses, one per failure class (documented in ntop-js.1). */
#ifndef NTOP_EXITCODE_H
#define NTOP_EXITCODE_H

enum ntop_exit {
	EXIT_OK = 0,
	EXIT_INTERNAL = 1,       /* out of memory, an unexpected local failure, a file not written */
	EXIT_USAGE = 2,          /* bad command line */
	EXIT_NO_PROCESS = 3,     /* no such process */
	EXIT_NOT_NODE = 4,       /* not a Node process (or a wrapper around one) */
	EXIT_PERMISSION = 5,     /* the process belongs to another user */
	EXIT_SIGNAL_DISABLED = 6,/* attach by signal disabled in the target */
	EXIT_PORT_BUSY = 7,      /* the inspector could not listen: its port is taken */
	EXIT_UNREACHABLE = 8,    /* no inspector at that address, or it refused us */
	EXIT_TIMEOUT = 9,        /* the target did not answer in time */
	EXIT_TARGET_GONE = 10,   /* the target exited or closed the connection during the session */
	EXIT_PROTOCOL = 11,      /* the peer sent something that is not the inspector protocol */
	EXIT_PAUSE = 12,         /* it would pause the target longer than --max-pause allows */
};

#endif
