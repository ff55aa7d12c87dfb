/* A submit the validator refused: the guest hears of it through that submit's fence (an ERROR
 * reply, or the fence's status for a job held for in-fences) and operators through a warning
 * and `ferry status` (validation-rejects). The context stays usable, as the validator changed
 * nothing (the kernel was never reached). Warnings are limited to one a second per context, with
 * the number left out. */
#include "host_log.h"

void ctx_submit_refused(struct host_queue *q, uint32_t seqno, int err, const char *why)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host *h = ctx->client->host;
	ctx->refused = false;
	int64_t sec = host_now_ns() / 1000000000;
	if (sec == ctx->refusal_log_sec) {
		if (ctx->refusals_unlogged < UINT32_MAX)
			ctx->refusals_unlogged++;
		return;
	}
	char more[64] = "", etext[96];
	if (ctx->refusals_unlogged)
		snprintf(more, sizeof(more), " (%u more of this context not logged)", ctx->refusals_unlogged);
	host_log(h, FERRY_LOG_WARN, "%s: context %u queue %u seqno %u: submit refused, %s: %s%s", ctx->client->peer,
		 ctx->id, q->id, seqno, ferry_errno_text(err, etext, sizeof(etext)), why, more);
	ctx->refusal_log_sec = sec;
	ctx->refusals_unlogged = 0;
}
