/*
 * txpath/txpath.h - every public header of the library, libtxpath and
 * libtxpath-net (net.h's functions are libtxpath-net's).
 *
 * The workload (src/run/run.h) and the schedule explorer
 * (src/check/explore.h) are the txpath tool's, not the library's: they
 * are not installed.  A driver's headers are installed but not included
 * here: the concurrency seam (txpath/sync.h), the kernel's names
 * (txpath/linux.h, which defines u32, likely, ... that a program may have
 * of its own) and the plugin ABI (txpath/plugin.h).
 */
#ifndef TXPATH_TXPATH_H
#define TXPATH_TXPATH_H

#include "txpath/ctx.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/net.h"
#include "txpath/netdrv.h"
#include "txpath/null.h"
#include "txpath/pkt.h"
#include "txpath/qdisc.h"
#include "txpath/sim.h"
#include "txpath/validator.h"
#include "txpath/version.h"

#endif
