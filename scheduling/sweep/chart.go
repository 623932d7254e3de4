package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// metric is one panel of the chart.
type metric struct {
	title string
	value func(*Result) float64
	// percent: values are shares, shown in percent.
	percent bool
}

func chartMetrics() []metric {
	return []metric{
		{"CPU utilization, mean over nodes", func(r *Result) float64 { return r.CPU.Mean }, true},
		{"CPU utilization, standard deviation across nodes", func(r *Result) float64 { return r.CPU.StdDev }, true},
		{"Stranded CPU: share of free cpu no reference pod can use", func(r *Result) float64 { return r.StrandedCPU }, true},
		{"Pods pending when the last pod arrived", func(r *Result) float64 { return float64(r.Pending) }, false},
	}
}

// palette colours the profiles, in turn.
func palette() []string {
	return []string{"#4a7fc1", "#d9822b", "#3c9d5d", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"}
}

// series is one bar: a group and a profile, over the seeds.
type series struct {
	n             int
	sum, min, max float64
}

// WriteSVG draws the report as an SVG chart: one panel per metric (cpu
// utilization's mean and standard deviation across nodes, stranded cpu,
// pending pods), each with a group of bars per combination of cluster,
// workload and kube version, one bar per profile (coloured as the legend
// says), the bar the mean over the seeds and a line from the lowest to the
// highest seed's value. Failed units are left out. The output depends
// only on the results.
func (r *Report) WriteSVG(w io.Writer) error {
	type key struct{ group, profile string }
	var groups, profiles []string
	seen := map[string]bool{}
	vary := map[string]map[string]bool{"cluster": {}, "workload": {}, "kube": {}}
	seeds := map[uint64]bool{}
	for _, x := range r.Results {
		if x.Error != "" {
			continue
		}
		a := x.Axes
		vary["cluster"][a.Cluster] = true
		vary["workload"][a.Workload] = true
		vary["kube"][a.KubeVersion] = true
		seeds[a.Seed] = true
		if !seen["p/"+a.Profile] {
			seen["p/"+a.Profile] = true
			profiles = append(profiles, a.Profile)
		}
	}
	groupOf := func(a Axes) string {
		var parts []string
		if len(vary["cluster"]) > 1 || (len(vary["workload"]) <= 1 && len(vary["kube"]) <= 1) {
			parts = append(parts, a.Cluster)
		}
		if len(vary["workload"]) > 1 {
			parts = append(parts, a.Workload)
		}
		if len(vary["kube"]) > 1 {
			parts = append(parts, "v"+a.KubeVersion)
		}
		return strings.Join(parts, " / ")
	}
	metrics := chartMetrics()
	data := make([]map[key]*series, len(metrics))
	for i := range data {
		data[i] = map[key]*series{}
	}
	for k := range r.Results {
		x := &r.Results[k]
		if x.Error != "" {
			continue
		}
		g := groupOf(x.Axes)
		if !seen["g/"+g] {
			seen["g/"+g] = true
			groups = append(groups, g)
		}
		for i, m := range metrics {
			v := m.value(x)
			kk := key{g, x.Axes.Profile}
			s := data[i][kk]
			if s == nil {
				s = &series{min: v, max: v}
				data[i][kk] = s
			}
			s.n++
			s.sum += v
			s.min, s.max = min(s.min, v), max(s.max, v)
		}
	}

	const (
		left, right, header = 90, 30, 56
		title, panelH       = 24, 170
		below               = 44 // group labels under a panel
		minBar, maxBar, gap = 10, 28, 24
		legendLine          = 18
	)
	nProfiles := max(len(profiles), 1)
	plotW := max(640, len(groups)*(nProfiles*minBar+gap))
	groupW := float64(plotW) / float64(max(len(groups), 1))
	barW := min(float64(maxBar), (groupW-gap)/float64(nProfiles))
	width := left + plotW + right
	block := title + panelH + below
	legendH := (len(profiles)+1)*legendLine + 12
	height := header + len(metrics)*block + legendH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">Sweep of %d units: %d profiles, %d seeds</text>`+"\n",
		left, len(r.Results)-len(r.Failed()), len(profiles), len(seeds))
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#555">Each bar is the mean over the seeds; its black line runs from the lowest to the highest seed.</text>`+"\n", left)
	colors := palette()
	for i, m := range metrics {
		top := header + i*block + title
		bottom := top + panelH
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, top-8, svgEscape(m.title))
		hi := 0.0
		for _, s := range data[i] {
			hi = max(hi, s.max)
		}
		step := niceStep(hi, m.percent)
		ticks := max(1, int(math.Ceil(hi/step-1e-9)))
		scaleTop := step * float64(ticks)
		y := func(v float64) float64 { return float64(bottom) - float64(panelH)*v/scaleTop }
		for t := 0; t <= ticks; t++ {
			v := step * float64(t)
			yy := y(v)
			fmt.Fprintf(&b, `<line x1="%d" y1="%.2f" x2="%d" y2="%.2f" stroke="#ddd"/>`+"\n", left, yy, left+plotW, yy)
			label := fmt.Sprintf("%g", v)
			if m.percent {
				label = fmt.Sprintf("%g%%", math.Round(v*1000)/10)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%.2f" text-anchor="end">%s</text>`+"\n", left-6, yy+4, label)
		}
		unit := "pods"
		if m.percent {
			unit = "percent"
		}
		fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", left-52, top+panelH/2, unit)
		for g, name := range groups {
			x0 := float64(left) + float64(g)*groupW + (groupW-barW*float64(len(profiles)))/2
			for p, prof := range profiles {
				s := data[i][key{name, prof}]
				if s == nil {
					continue
				}
				x := x0 + float64(p)*barW
				mean := s.sum / float64(s.n)
				fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%s, %s: mean %s over %d seeds (%s–%s)</title></rect>`+"\n",
					x, y(mean), barW-2, float64(bottom)-y(mean), colors[p%len(colors)], svgEscape(name), svgEscape(prof),
					format(mean, m.percent), s.n, format(s.min, m.percent), format(s.max, m.percent))
				if s.n > 1 {
					cx := x + (barW-2)/2
					fmt.Fprintf(&b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="black"/>`+"\n", cx, y(s.min), cx, y(s.max))
				}
			}
			fmt.Fprintf(&b, `<text x="%.2f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+(float64(g)+0.5)*groupW, bottom+16, svgEscape(name))
		}
		axis := "cluster"
		if len(groups) > 0 {
			var parts []string
			for _, a := range []string{"cluster", "workload", "kube"} {
				if len(vary[a]) > 1 || (a == "cluster" && len(vary["workload"]) <= 1 && len(vary["kube"]) <= 1) {
					parts = append(parts, a)
				}
			}
			axis = strings.Join(parts, " / ")
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", left+plotW/2, bottom+34, axis)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", left, top, plotW, panelH)
	}
	ly := header + len(metrics)*block + 4
	for p, prof := range profiles {
		yy := ly + p*legendLine
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", left, yy, colors[p%len(colors)], left+18, yy+10, svgEscape(prof))
	}
	yy := ly + len(profiles)*legendLine
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/><text x="%d" y="%d">lowest to highest over the seeds</text>`+"\n", left+6, yy, left+6, yy+12, left+18, yy+10)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceStep is a tick step of 1, 2 or 5 times a power of ten giving about
// four ticks up to hi (shares: at least 1 %; counts: at least 1).
func niceStep(hi float64, percent bool) float64 {
	lo := 1.0
	if percent {
		lo = 0.01
	}
	if hi <= 0 {
		return lo
	}
	raw := hi / 4
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return max(m*p, lo)
		}
	}
	return max(10*p, lo)
}

func format(v float64, percent bool) string {
	if percent {
		return pct(v)
	}
	return fmt.Sprintf("%.1f", v)
}

func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
