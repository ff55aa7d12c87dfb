/* The V3D workload of `ferry demo` (demo_v3d.c). */
#ifndef FERRY_TOOLS_DEMO_V3D_H
#define FERRY_TOOLS_DEMO_V3D_H

/* gpu: "v3d-4.2" or "v3d-7.1"; server: a running ferryd's URI, or NULL to start ferryd_path.
 * Returns the exit status (0 iff every check held). */
int demo_v3d(const char *gpu, int ver, const char *server, const char *ferryd_path);

#endif
