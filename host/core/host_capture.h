/* The operator's submit capture and the captures attached to fault reports (host_capture.c). */
#ifndef FERRY_HOST_HOST_CAPTURE_H
#define FERRY_HOST_HOST_CAPTURE_H

#include "host_types.h"

/* The operator's submit capture and the captures attached to fault reports. The
 * frame being handled (client.c notes it) is what a capture records as the guest sent it. */
void capture_note_frame(struct ferry_host *h, const void *payload, size_t len);
/* A submit m (seqno of q) accepted, its listed BOs resolved in bos[], before it reaches the kernel:
 * captured (the family's capture_build) when a capture matches; remembered for a fault's capture
 * when a crash dir is set. */
void capture_submit(struct host_queue *q, uint32_t seqno, const struct ferry_msg *m, struct host_bo *const *bos,
		    uint32_t nr_bos);
/* For a fault report of seqno on q: writes the submit's capture next to report number and
 * returns guest_lines (ownership taken) with a "capture: <path>" line appended. */
char *capture_fault_lines(struct host_queue *q, uint32_t seqno, uint64_t number, char *guest_lines);
void capture_host_fini(struct ferry_host *h);

#endif
