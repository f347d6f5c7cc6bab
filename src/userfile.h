/* userfile.h: opening a file that ntop-js appends to at a path the user gave (--log), safely
 * when it runs as root in a directory others can write to, such as /tmp.
 *
 * The path's last component is never followed if it is a symbolic link (O_NOFOLLOW: the
 * kernel's fs.protected_symlinks may be off). A new file is created with mode 0600. An
 * existing one is taken only if it is a regular file with a single name, owned by ntop-js's
 * effective user, and neither readable nor writable by group or others: a planted file, a
 * hard link to someone's file or a file others read is refused, not appended to. The checks
 * are made on the descriptor that is then written, so nothing can be swapped in between.
 * (Files written whole go through atomicfile.h, whose temporary file is created with
 * O_EXCL and renamed over the name, replacing a link rather than following it.) */
#ifndef NTOP_USERFILE_H
#define NTOP_USERFILE_H

/* Opens path for appending (read and write where the owner may read, so that the caller can
 * look at its end; O_CLOEXEC, blocking). what names the option in messages ("--log").
 * Returns the descriptor, or -1 with *cause (one sentence) and *status: EXIT_USAGE for a
 * path refused by the rules above, EXIT_INTERNAL for a file that cannot be opened. */
int userfile_open_append(const char *path, const char *what, int *status, char **cause);
/* A directory ntop-js writes into (--incident-dir): created with mode 0700 if missing, never
 * followed if it is a symbolic link, and taken only if it is owned by ntop-js's effective user
 * and writable by no one else (so that nothing in it can be planted or swapped). Returns a
 * descriptor of it (O_DIRECTORY, O_CLOEXEC), or -1 with *cause and *status as above. */
int userfile_open_dir(const char *path, const char *what, int *status, char **cause);

#endif
