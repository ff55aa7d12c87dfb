/* Sending to a client and counting its fds (client.c). */
#ifndef FERRY_HOST_HOST_CLIENT_H
#define FERRY_HOST_HOST_CLIENT_H

#include "host_types.h"

void client_send(struct ferry_host_client *c, const struct ferry_msg *m, const int *fds, int nfds);
void client_send_status(struct ferry_host_client *c, uint32_t seq, int32_t error);
/* 0 if the client may take need more fds (max_client_fds, counting the embedder's), else
 * -EDQUOT with the reason in why. */
int client_fds_admit(struct ferry_host_client *c, uint32_t need, char *why, size_t n);
/* Counts fds the client's objects now hold (delta > 0) or no longer hold (delta < 0). */
void client_fds_add(struct ferry_host_client *c, int delta);
/* Handles a decoded request (payload: its frame, 8-byte aligned, kept if it goes in progress):
 * the path every socket frame and ring record takes. As ferry_host_client_handle returns. */
int client_handle_msg(struct ferry_host_client *c, const struct ferry_msg *m, const void *payload, size_t len);

#endif
