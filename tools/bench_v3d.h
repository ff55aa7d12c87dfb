/* The V3D part of `ferry bench` (bench_v3d.c). */
#ifndef FERRY_TOOLS_BENCH_V3D_H
#define FERRY_TOOLS_BENCH_V3D_H

/* gpu: "v3d-4.2" or "v3d-7.1"; server: a running ferryd's URI (it must serve that V3D), or NULL
 * to start ferryd_path. Prints the figures; returns the exit status. */
int bench_v3d(const char *gpu, const char *server, const char *ferryd_path, int iters);

#endif
