/* msm captures (msm_capture.c): the family's capture_build and submit_bo_ids ops. */
#ifndef FERRY_HOST_MSM_CAPTURE_H
#define FERRY_HOST_MSM_CAPTURE_H

#include "core/host_types.h"

struct capture_buffers;
struct capture_file;
struct capture_submit;

/* Appends one MSM_SUBMIT to b (the file's first submit also writes the file's opening): its .rd
 * and/or session records. Command-buffer BOs are always copied; with full, the other BOs too, in
 * bos[] order while their total fits full_budget (those left out are counted in the NOTE when it
 * is written). 0 or a negative errno. */
int msm_capture_build(struct capture_buffers *b, struct capture_file *f, const struct capture_submit *a);
/* The BO ids an MSM_SUBMIT lists (ids[i * stride bytes]), or -EINVAL for another message. */
int msm_submit_bo_ids(const struct ferry_msg *m, const uint32_t **ids, size_t *stride, uint32_t *nr);

#endif
