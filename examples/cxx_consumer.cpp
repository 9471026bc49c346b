// cxx_consumer.cpp - txpath from C++: <txpath/txpath.h> as it is (every
// header has its extern "C" guards), two std::threads sending through the
// simulated NIC (tg3-2005, the core's xmit lock), every packet accounted.
// Built against the installed library with
// `pkg-config --cflags --libs txpath`; exits 0 when
// submitted = transmitted + dropped and the wire saw each packet once.
#include <cstdio>
#include <thread>
#include <vector>

#include <txpath/txpath.h>

namespace {

constexpr unsigned kThreads = 2;
constexpr unsigned long kEach = 10000;

void produce(txp_dev *dev, unsigned flow)
{
	for (unsigned long i = 0; i < kEach; i++) {
		txp_pkt *pkt = txp_pkt_alloc();

		if (!pkt)
			return;
		pkt->len = 64;
		pkt->flow = flow;
		pkt->seq = i;
		txp_dev_queue_xmit(dev, pkt);	// the library's now, queued or dropped
	}
}

}  // namespace

int main()
{
	char err[128];
	txp_sim_cfg sc{};
	sc.personality = txp_sim_personality("tg3-2005");
	sc.ring = 256;
	sc.batch = 32;
	sc.max_flows = kThreads;
	txp_sim *sim = txp_sim_create(&sc, err, sizeof(err));
	if (!sim) {
		std::fprintf(stderr, "cxx_consumer: %s\n", err);
		return 1;
	}
	txp_dev_cfg dc{};
	dc.name = "sim0";
	dc.lock = TXP_LOCK_CORE;
	dc.ops = &txp_sim_ops;
	dc.priv = sim;
	txp_dev *dev = txp_dev_create(&dc, err, sizeof(err));
	if (!dev || txp_dev_open(dev) != 0) {
		std::fprintf(stderr, "cxx_consumer: %s\n", dev ? "open failed" : err);
		return 1;
	}

	std::vector<std::thread> producers;
	for (unsigned i = 0; i < kThreads; i++)
		producers.emplace_back(produce, dev, i);
	for (auto &t : producers)
		t.join();
	txp_dev_close(dev);

	txp_dev_stats st;
	txp_sim_stats ss;
	txp_dev_get_stats(dev, &st);
	txp_sim_get_stats(sim, &ss);
	txp_dev_destroy(dev);
	txp_sim_destroy(sim);
	unsigned long long dropped = 0;
	for (auto d : st.dropped)
		dropped += d;
	std::printf("txpath %s from C++: submitted %llu transmitted %llu dropped %llu, "
		    "on the wire %llu (%llu duplicates)\n", txp_version(),
		    static_cast<unsigned long long>(st.submitted),
		    static_cast<unsigned long long>(st.transmitted), dropped,
		    static_cast<unsigned long long>(ss.wire.unique),
		    static_cast<unsigned long long>(ss.wire.duplicates));
	bool ok = st.submitted == kThreads * kEach && st.submitted == st.transmitted + dropped &&
		  ss.wire.unique == st.transmitted && ss.wire.duplicates == 0;
	std::printf("%s\n", ok ? "accounted: submitted = transmitted + dropped" : "NOT accounted");
	return ok ? 0 : 1;
}
