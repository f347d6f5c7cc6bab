/* app.h: the program: options, attach, the event loop, the engine and the outputs wired
 * together. main() only calls app_main(). */
#ifndef NTOP_APP_H
#define NTOP_APP_H

int app_main(int argc, char **argv);

#endif
