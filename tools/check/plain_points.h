/*
 * plain_points.h - txpath check --plain-points: the plain loads and stores
 * of chosen code made scheduling points of the explorer.
 */
#ifndef TXP_TOOLS_PLAIN_POINTS_H
#define TXP_TOOLS_PLAIN_POINTS_H

#include <stdbool.h>
#include <stddef.h>

/* Choose the code of spec, a comma-separated list of "driver" (the
 * plugin whose code holds driver_code; NULL: no plugin loaded) and source
 * file names ("ring.c", "common/ring.c": a path's end, at a '/'), each of
 * which must name code of this program or of the plugin.  Call it once
 * the plugin is loaded.  false with a one-line reason in err. */
bool plain_points_choose(const char *spec, const void *driver_code, char *err, size_t len);
/* Is the plain access made by the code at pc one of the chosen? */
bool plain_points_chosen(const void *pc);
/* The spec chosen, as given; "-" if none. */
const char *plain_points_spec(void);

#endif
