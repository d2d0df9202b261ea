// Command programsreport sums up the JSON lines the real-program tests
// append to $YS_PROGRAMS_REPORT: per program and protocol, how many runs
// passed, failed and skipped and the median answer latency, then per
// input_signal the latency's median, p90 and max over every turn.
//
//	YS_PROGRAMS_REPORT=/tmp/r.jsonl go test -run TestRealPrograms -count=20 ./conformance/
//	go run ./conformance/testdata/programsreport < /tmp/r.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
)

type row struct {
	Program    string  `json:"program"`
	Protocol   string  `json:"protocol"`
	Signal     string  `json:"signal"`
	AfterBytes float64 `json:"after_bytes_ms"`
	AfterMin   float64 `json:"after_bytes_min_ms"`
	RoundTrip  float64 `json:"round_trip_ms"`
	Result     string  `json:"result"`
}

func main() {
	results := map[string]map[string]int{}
	latencies := map[string][]float64{} // by program and protocol
	bySignal := map[string][3][]float64{}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var r row
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "programsreport:", err)
			os.Exit(1)
		}
		k := r.Program + " " + r.Protocol
		if r.Result != "" {
			if results[k] == nil {
				results[k] = map[string]int{}
			}
			results[k][r.Result]++
			continue
		}
		latencies[k] = append(latencies[k], r.AfterBytes)
		s := bySignal[r.Signal]
		s[0], s[1], s[2] = append(s[0], r.AfterBytes), append(s[1], r.AfterMin), append(s[2], r.RoundTrip)
		bySignal[r.Signal] = s
	}
	for _, k := range slices.Sorted(maps.Keys(results)) {
		c := results[k]
		fmt.Printf("%-36s pass %3d fail %3d skip %3d", k, c["pass"], c["fail"], c["skip"])
		if l := latencies[k]; len(l) > 0 {
			fmt.Printf("  turns %4d median %6.1f ms p90 %6.1f ms", len(l), quantile(l, .5), quantile(l, .9))
		}
		fmt.Println()
	}
	fmt.Println()
	fmt.Println("input_signal   turns  after bytes ms, upper bound (median p90 max)  lower bound (median p90)  round trip (median p90)")
	for _, sig := range slices.Sorted(maps.Keys(bySignal)) {
		s := bySignal[sig]
		fmt.Printf("%-13s %6d  %8.1f %8.1f %8.1f  %8.1f %8.1f  %8.1f %8.1f\n", sig, len(s[0]),
			quantile(s[0], .5), quantile(s[0], .9), quantile(s[0], 1), quantile(s[1], .5), quantile(s[1], .9),
			quantile(s[2], .5), quantile(s[2], .9))
	}
}

// quantile is the q-quantile of xs by nearest rank.
func quantile(xs []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
