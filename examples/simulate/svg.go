package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/scheduling/replay"
)

// maxGroups bounds the bars of a panel: beyond it, nodes are grouped and
// each bar is a group's mean, with the group's memory range as a band (at
// 1,000 nodes a line through every node's memory is a solid smear).
const maxGroups = 200

// nodeGroup is the utilization of a run of nodes, sorted by cpu.
type nodeGroup struct {
	cpu, mem, memMin, memMax float64
}

// groupNodes sorts the nodes by cpu utilization, fullest first, and splits
// them into at most maxGroups runs of equal size (±1).
func groupNodes(per []replay.NodeUtilization) []nodeGroup {
	us := slices.Clone(per)
	slices.SortStableFunc(us, func(a, b replay.NodeUtilization) int { return cmp.Compare(b.CPU, a.CPU) })
	n := len(us)
	groups := make([]nodeGroup, min(n, maxGroups))
	for j := range groups {
		run := us[j*n/len(groups) : (j+1)*n/len(groups)]
		g := nodeGroup{memMin: run[0].Memory, memMax: run[0].Memory}
		for _, u := range run {
			g.cpu += u.CPU
			g.mem += u.Memory
			g.memMin, g.memMax = min(g.memMin, u.Memory), max(g.memMax, u.Memory)
		}
		g.cpu /= float64(len(run))
		g.mem /= float64(len(run))
		groups[j] = g
	}
	return groups
}

// writeSVG draws, per profile, the utilization of every node at the
// snapshot taken at (after the start): cpu as bars, nodes sorted from
// fullest to emptiest, memory as a line (and, when nodes are grouped, the
// band of each group's lowest to highest memory), as a hand-written SVG.
func writeSVG(w io.Writer, at time.Duration, profiles []namedProfile, results []*replay.Result) error {
	// Heights from top to bottom: the chart's title, then per panel its
	// title, its plot, and the x ticks and title below it; the legend.
	const (
		width, left, right           = 900, 80, 30
		header, title, panelH, below = 36, 22, 160, 48
		legend                       = 28
		plotW                        = width - left - right
	)
	block := title + panelH + below
	height := header + len(results)*block + legend
	nodes := 0
	if len(results) > 0 {
		nodes = len(results[0].Metrics.PerNode)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">Node utilization at +%gs, when the last pod arrived (%d nodes)</text>`+"\n", left, at.Round(time.Millisecond).Seconds(), nodes)
	grouped := nodes > maxGroups
	for i, r := range results {
		top := header + i*block + title
		bottom := top + panelH
		m := r.Metrics
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s — cpu mean %s, sd %s; memory mean %s, sd %s</text>`+"\n",
			left, top-8, svgEscape(profiles[i].name), pct(m.CPU.Mean), pct(m.CPU.StdDev), pct(m.Memory.Mean), pct(m.Memory.StdDev))
		// y axis: gridlines and ticks every 25%, and its title.
		for _, y := range []int{0, 25, 50, 75, 100} {
			yy := bottom - panelH*y/100
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/>`+"\n", left, yy, left+plotW, yy)
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d%%</text>`+"\n", left-6, yy+4, y)
		}
		fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">requested / allocatable</text>`+"\n", left-44, top+panelH/2)
		// x axis: node ranks at quarters, and its title.
		prev, n := -1, len(m.PerNode)
		for q := range 5 {
			rank := n * q / 4
			if rank == prev {
				continue
			}
			prev = rank
			x := float64(left) + float64(plotW)*float64(rank)/float64(max(n, 1))
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`+"\n", x, bottom, x, bottom+4)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x, bottom+16, rank)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">nodes, sorted by cpu utilization (fullest first)</text>`+"\n", left+plotW/2, bottom+34)
		if len(m.PerNode) > 0 {
			groups := groupNodes(m.PerNode)
			bw := float64(plotW) / float64(len(groups))
			y := func(u float64) float64 { return float64(bottom) - float64(panelH)*min(u, 1) }
			xMid := func(j int) float64 { return float64(left) + (float64(j)+0.5)*bw }
			for j, g := range groups {
				fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#4a7fc1"/>`+"\n",
					float64(left)+float64(j)*bw, y(g.cpu), max(bw, 0.5), float64(bottom)-y(g.cpu))
			}
			if n > maxGroups {
				var band []string
				for j, g := range groups {
					band = append(band, fmt.Sprintf("%.2f,%.2f", xMid(j), y(g.memMax)))
				}
				for j := len(groups) - 1; j >= 0; j-- {
					band = append(band, fmt.Sprintf("%.2f,%.2f", xMid(j), y(groups[j].memMin)))
				}
				fmt.Fprintf(&b, `<polygon points="%s" fill="#d9822b" fill-opacity="0.3"/>`+"\n", strings.Join(band, " "))
			}
			var line []string
			for j, g := range groups {
				line = append(line, fmt.Sprintf("%.2f,%.2f", xMid(j), y(g.mem)))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#b5651d" stroke-width="1.5"/>`+"\n", strings.Join(line, " "))
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", left, top, plotW, panelH)
	}
	y := height - 10
	if grouped {
		k := (nodes + maxGroups - 1) / maxGroups
		size := fmt.Sprint(k)
		if nodes%maxGroups != 0 {
			size = fmt.Sprintf("%d–%d", nodes/maxGroups, k)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d"><tspan fill="#4a7fc1">■ cpu, mean of each group of %s nodes</tspan>`+
			`<tspan dx="16" fill="#b5651d">— memory, the group's mean</tspan><tspan dx="16" fill="#d9822b">▮ memory, the group's lowest to highest</tspan></text>`+"\n", left, y, size)
	} else {
		fmt.Fprintf(&b, `<text x="%d" y="%d"><tspan fill="#4a7fc1">■ cpu per node</tspan><tspan dx="16" fill="#b5651d">— memory per node</tspan></text>`+"\n", left, y)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
