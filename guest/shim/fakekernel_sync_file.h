/* libferry-fakekernel.so's sync files for the simulated kernels (fakekernel_sync_file.c). */
#ifndef FERRY_SHIM_FAKEKERNEL_SYNC_FILE_H
#define FERRY_SHIM_FAKEKERNEL_SYNC_FILE_H

#include "shim.h"
#include "sim/sim_syncobj.h"

extern const struct sim_sync_file_hooks shim_fakekernel_sync_files;

#endif
