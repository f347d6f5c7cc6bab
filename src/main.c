/* main.c: ntop-js, a live top-style profiler for running Node.js processes. */
#include "config.h"

#include "app.h"

int main(int argc, char **argv)
{
	return app_main(argc, argv);
}
