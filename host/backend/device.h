/* The GPU device factory: what `--gpu` names — a simulated part (a630, a660, v3d-4.2, v3d-7.1), a
 * render node (/dev/dri/renderDNNN) or `auto` (the first msm or v3d render node) — as one object
 * that opens a kdev per context. Core reaches the simulators only through here. */
#ifndef FERRY_BACKEND_DEVICE_H
#define FERRY_BACKEND_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kdev;
struct gpu_device;

enum gpu_family { GPU_FAMILY_MSM, GPU_FAMILY_V3D };

/* The work-not-executed report of a simulated open (kinds as sim_unmodeled.h). */
typedef void (*gpu_unmodeled_fn)(void *cookie, unsigned kind, uint64_t count, const char *what);

/* gpu: a simulated model name, a /dev/dri path or "auto". 0, or a negative errno with the reason
 * in why (-EINVAL: no such model; -ENODEV: not an msm / v3d node, or none found by auto). */
int gpu_device_create(const char *gpu, struct gpu_device **out, char *why, size_t why_len);
void gpu_device_destroy(struct gpu_device *d);

enum gpu_family gpu_device_family(const struct gpu_device *d);
/* "sim a630", "/dev/dri/renderD128 (msm 1.9.0)". */
const char *gpu_device_name(const struct gpu_device *d);
/* The part, named as --gpu names the simulated ones: "a630", "v3d-4.2" (a node's from its
 * GPU_ID / CORE0_IDENT). What guests are told and captures record. */
const char *gpu_device_model(const struct gpu_device *d);
/* Whether the kernel behind it is ferry's simulator (sim-only hooks act) or a real node. */
bool gpu_device_is_simulated(const struct gpu_device *d);
/* What a real kernel gives less of than the simulator, one sentence ("" for the simulator). */
const char *gpu_device_limits(const struct gpu_device *d);

/* One open (DRM file) for a context: NULL with errno set. */
struct kdev *gpu_device_open(struct gpu_device *d);

/* Sim-only controls; no-ops on a render node (the kernel's hangcheck and execution are its own). */
void gpu_device_set_hangcheck_ms(struct gpu_device *d, unsigned ms);
void gpu_device_set_strict(struct gpu_device *d, bool strict);
void gpu_device_set_unmodeled_cb(struct gpu_device *d, struct kdev *kd, gpu_unmodeled_fn fn, void *cookie);

/* The kinds of unexecuted work (the simulator's list; a real GPU reports none). */
#define GPU_UNMODELED_KINDS 5u
const char *gpu_unmodeled_name(unsigned kind);
const char *gpu_unmodeled_message(unsigned kind);
bool gpu_unmodeled_fails_strict(unsigned kind);

/* Whether gpu names something gpu_device_create may take (a known model, a path, "auto"). */
bool gpu_name_valid(const char *gpu);
/* The simulated models, NULL-terminated: msm ones then V3D ones. */
extern const char *const gpu_sim_models[];

#endif
