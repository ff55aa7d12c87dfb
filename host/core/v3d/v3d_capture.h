/* V3D captures (v3d_capture.c): the family's capture_build and submit_bo_ids ops. */
#ifndef FERRY_HOST_V3D_CAPTURE_H
#define FERRY_HOST_V3D_CAPTURE_H

#include "core/host_types.h"

struct capture_buffers;
struct capture_file;
struct capture_submit;

/* Appends one V3D submit to b's session: the context, queue and BOs the file has not created
 * yet, a snapshot of every listed BO (full and its budget do not apply: a job's lists, shaders
 * and uniforms may sit in any of them), the frame. 0 or a negative errno. */
int v3d_capture_build(struct capture_buffers *b, struct capture_file *f, const struct capture_submit *a);
/* The BO ids a V3D submit lists (ids[i * stride bytes]), or -EINVAL for another message. */
int v3d_submit_bo_ids(const struct ferry_msg *m, const uint32_t **ids, size_t *stride, uint32_t *nr);

#endif
