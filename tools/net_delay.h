/* A TCP delay line for `ferry bench --network`: a relay that holds every byte for a fixed time in
 * each direction, standing in for `tc qdisc ... netem delay` on kernels built without sch_netem. */
#ifndef FERRY_TOOLS_NET_DELAY_H
#define FERRY_TOOLS_NET_DELAY_H

struct net_delay;

/* Listens on listen_host (an ephemeral port) and relays each connection to target_host:port,
 * delaying each direction by delay_us. *port gets the listening port. 0 or a negative errno. */
int net_delay_start(const char *listen_host, const char *target_host, const char *target_port,
		    unsigned delay_us, struct net_delay **out, unsigned *port);
/* Stops the relay thread and closes every connection. */
void net_delay_stop(struct net_delay *d);

#endif
