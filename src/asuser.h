/* asuser.h: reading a file that a target names (a script, its source map, a map's source)
 * with the target's rights, not ntop-js's.
 *
 * A reader is taken at attach: the target's root directory (/proc/PID/root, opened once, so
 * that a PID used again later does not change it) and its filesystem uid, gid, supplementary
 * groups and effective capabilities from /proc/PID/status. Each read runs in a short-lived
 * child process: when ntop-js is root or has any effective capability, the child enters the
 * target's root (chroot), takes the target's ids and capabilities (those of them ntop-js has),
 * and only then opens the file (openat2 with RESOLVE_IN_ROOT and RESOLVE_NO_MAGICLINKS where
 * the kernel has it); if it cannot, nothing is read. Otherwise it reads with ntop-js's own
 * rights, which are the target's user's. The file comes back through a pipe within a time
 * bound, followed by a record that says it came whole: a child that does not answer in time
 * (a hung NFS or FUSE mount) is killed, one that ends early is a failure. So a file the
 * target could not read is not read, whatever ntop-js's rights are, and no read ever waits
 * without end. Failures are one sentence in *err. */
#ifndef NTOP_ASUSER_H
#define NTOP_ASUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Supplementary groups kept (the kernel's NGROUPS_MAX is 65536; /proc shows them all). */
#define ASUSER_MAX_GROUPS 256
/* A read that takes longer is abandoned and its child killed. */
#define ASUSER_TIMEOUT_S 5.0
/* How much of a file's end a tail read takes. */
#define ASUSER_TAIL_BYTES 4096

/* Whose rights a read has: a process's filesystem ids, groups and effective capabilities. */
struct asuser_ids {
	uid_t uid;
	gid_t gid;
	size_t n_groups;
	gid_t groups[ASUSER_MAX_GROUPS];
	uint64_t cap_eff;
};

/* Parses the Uid, Gid (their fourth field, the filesystem id), Groups and CapEff lines of a
 * /proc/PID/status text. Returns 0, or -1 with *err when a line is missing or malformed or
 * there are more than ASUSER_MAX_GROUPS groups. */
int asuser_status_parse(const char *text, size_t len, struct asuser_ids *ids, char **err);

struct asuser;

/* The reader of process pid's files, with its rights. Returns NULL with *err when the
 * process is gone or its root or status cannot be read. */
struct asuser *asuser_open(pid_t pid, char **err);
/* A reader of the files under directory root (NULL: "/"): with ids' rights when ids is not
 * NULL (and ntop-js is root or has capabilities), else with ntop-js's own. For tests and
 * replays. */
struct asuser *asuser_open_dir(const char *root, const struct asuser_ids *ids, char **err);
/* A reader with u's root and rights, freed on its own (a load that outlives u's owner); NULL
 * with *err when no descriptor is left. */
struct asuser *asuser_dup(const struct asuser *u, char **err);
void asuser_free(struct asuser *u); /* accepts NULL */

/* The uid reads take ("as uid N" in messages); -1 when reads have ntop-js's own rights. */
long asuser_uid(const struct asuser *u);

/* Reads the file at absolute, normalised path under the reader's root: the whole of it, up
 * to max bytes (larger: refused), or with tail_only its last ASUSER_TAIL_BYTES. Only regular
 * files. *buf is NUL-terminated. Blocks the calling thread up to timeout_s: call it off the
 * event loop. Returns 0, or -1 with *err. Safe from any thread. */
int asuser_read(const struct asuser *u, const char *path, size_t max, bool tail_only,
	double timeout_s, char **buf, size_t *len, char **err);

#endif
