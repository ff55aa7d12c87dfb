/* A queue's submits by fence, standing in for msm's fence_idr: a hash table that grows and
 * shrinks with the drawqueue, so that submit, WAIT_FENCE and retire each cost O(1). */
#include <stdlib.h>

#include "sim_msm_priv.h"

/* Fibonacci hashing: consecutive fences (the cyclic ids, ferryd's seqnos) land in different
 * buckets, and so do fences a client spaced by a power of two (MSM_SUBMIT_FENCE_SN_IN). */
static uint32_t bucket(const struct msms_fence_idr *t, uint32_t fence)
{
	return (uint32_t)(fence * 0x9E3779B1u) >> t->shift;
}

void msms_fence_idr_init(struct msms_fence_idr *t)
{
	t->buckets = t->small;
	t->shift = 32u - MSMS_FENCE_IDR_MIN_BITS;
	t->count = 0;
	for (uint32_t i = 0; i < (1u << MSMS_FENCE_IDR_MIN_BITS); i++)
		t->small[i] = NULL;
}

void msms_fence_idr_fini(struct msms_fence_idr *t)
{
	if (t->buckets != t->small)
		free(t->buckets);
	t->buckets = t->small;
}

struct msms_submit *msms_fence_idr_find(const struct msms_fence_idr *t, uint32_t fence)
{
	for (struct msms_submit *s = t->buckets[bucket(t, fence)]; s; s = s->hash_next)
		if (s->fence == fence)
			return s;
	return NULL;
}

static void hash_link(struct msms_fence_idr *t, struct msms_submit *s)
{
	struct msms_submit **head = &t->buckets[bucket(t, s->fence)];
	s->hash_next = *head;
	if (*head)
		(*head)->hash_pprev = &s->hash_next;
	s->hash_pprev = head;
	*head = s;
}

/* Moves every entry into 2^bits buckets. Without the memory the table stays as it is: longer
 * chains, the same answers. */
static void rehash(struct msms_fence_idr *t, uint32_t bits)
{
	uint32_t old_n = 1u << (32u - t->shift), n = 1u << bits;
	struct msms_submit **nb = bits == MSMS_FENCE_IDR_MIN_BITS ? t->small : calloc(n, sizeof(*nb));
	if (!nb)
		return;
	struct msms_submit **ob = t->buckets;
	if (nb == t->small) { /* shrinking back into the inline buckets: empty them first */
		for (uint32_t i = 0; i < n; i++)
			nb[i] = NULL;
	}
	t->buckets = nb;
	t->shift = 32u - bits;
	for (uint32_t i = 0; i < old_n; i++) {
		for (struct msms_submit *s = ob[i], *next; s; s = next) {
			next = s->hash_next;
			hash_link(t, s);
		}
	}
	if (ob != t->small)
		free(ob);
}

void msms_fence_idr_insert(struct msms_fence_idr *t, struct msms_submit *s)
{
	uint32_t bits = 32u - t->shift;
	/* At most one entry per bucket on average; 2^31 buckets are more than fences can fill. */
	if (t->count >= (1u << bits) && bits < 31)
		rehash(t, bits + 1);
	hash_link(t, s);
	t->count++;
}

void msms_fence_idr_remove(struct msms_fence_idr *t, struct msms_submit *s)
{
	*s->hash_pprev = s->hash_next;
	if (s->hash_next)
		s->hash_next->hash_pprev = s->hash_pprev;
	s->hash_next = NULL;
	s->hash_pprev = NULL;
	t->count--;
	/* A drawqueue swings by a factor of several between the host's batches and the GPU's, and
	 * each rehash is an allocation and a pass: the table shrinks only once the queue drained,
	 * or fell below a sixteenth of it (to twice the count then). It holds at most 8 bytes per
	 * submit the queue held at once, against the submits' own hundreds. */
	uint32_t bits = 32u - t->shift;
	if (bits == MSMS_FENCE_IDR_MIN_BITS || t->count >= (1u << bits) / 16)
		return;
	uint32_t want = MSMS_FENCE_IDR_MIN_BITS;
	while (want < bits && (1u << want) < 2 * t->count)
		want++;
	rehash(t, want);
}
