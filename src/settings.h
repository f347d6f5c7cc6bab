/* settings.h: the settings file, $XDG_CONFIG_HOME/ntop-js/config (~/.config/ntop-js/config),
 * "key=value" lines. Settings come from the defaults, then this file, then the command line.
 * The file is written only when a setting changes in the live view, atomically. */
#ifndef NTOP_SETTINGS_H
#define NTOP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "view.h"

#define SETTINGS_VERSION 1

struct settings {
	struct view_settings view;
	double delay_s;
	long interval_us;
};

void settings_defaults(struct settings *c);
/* Parses the text of a settings file over c. Unknown keys and bad values are skipped and
 * counted in *bad (the file may come from a newer version). */
void settings_parse(struct settings *c, const char *text, size_t len, size_t *bad);
/* The text of a settings file for c. Caller frees. */
char *settings_format(const struct settings *c);
/* The settings file's path (caller frees), or NULL if neither XDG_CONFIG_HOME nor HOME is set. */
char *settings_path(void);
/* Reads path over c. Returns 0 (also when the file does not exist), or -1 with *cause. */
int settings_load(struct settings *c, const char *path, char **cause);
/* Writes c to path atomically (creating the directory). Returns 0, or -1 with *cause. */
int settings_save(const struct settings *c, const char *path, char **cause);

/* Names used in the file and on the command line. */
const char *settings_sort_name(enum view_column col);
int settings_sort_parse(const char *name, enum view_column *col);
const char *settings_mode_name(enum model_mode mode);
int settings_mode_parse(const char *name, enum model_mode *mode);

#endif
