import Messaging

/// One output's SVG plot: a histogram of message → shown latency on top, the time series (message by message)
/// below, both with the vblank grid (multiples of the refresh period) marked as dashed lines.
public enum LatencyPlot {
    static let width = 900.0
    static let panelHeight = 220.0
    static let left = 70.0
    static let right = 20.0

    public static func svg(_ output: OutputReport) -> String {
        let samples = output.ordered
        let values = samples.compactMap(\.total).map { Double($0) / 1e6 }
        let refresh = Double(output.refreshNanoseconds) / 1e6
        let maxValue = max(values.max() ?? 1, refresh > 0 ? refresh * 1.05 : 1, 1)
        let top = 50.0
        let second = top + panelHeight + 70
        let height = second + panelHeight + 75
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="22" font-size="16">\(output.name.markupEscaped): message → \(output.source.markupEscaped) \
            (\(values.count) of \(output.expected.count) messages)</text>

            """
        let plotWidth = width - left - right

        // Histogram: 50 bins over [0, maxValue].
        let bins = 50
        var counts = [Int](repeating: 0, count: bins)
        for value in values { counts[min(bins - 1, Int(value / maxValue * Double(bins)))] += 1 }
        let highest = Double(max(counts.max() ?? 1, 1))
        svg += axes(x: left, y: top, w: plotWidth, h: panelHeight, xLabel: "latency (ms)", yLabel: "messages")
        svg += vblankGrid(
            vertical: true, x: left, y: top, w: plotWidth, h: panelHeight, max: maxValue, refresh: refresh)
        for (index, count) in counts.enumerated() where count > 0 {
            let barHeight = Double(count) / highest * panelHeight
            svg += rect(
                x: left + Double(index) * plotWidth / Double(bins), y: top + panelHeight - barHeight,
                w: plotWidth / Double(bins) - 1, h: barHeight, fill: "#3b82f6")
        }
        svg += ticks(horizontal: true, x: left, y: top, w: plotWidth, h: panelHeight, max: maxValue)
        svg += "<text x=\"\(left - 8)\" y=\"\(top + 4)\" text-anchor=\"end\">\(Int(highest))</text>\n"

        // Time series: message index → latency.
        svg += axes(x: left, y: second, w: plotWidth, h: panelHeight, xLabel: "message (in order sent)", yLabel: "ms")
        svg += vblankGrid(
            vertical: false, x: left, y: second, w: plotWidth, h: panelHeight, max: maxValue, refresh: refresh)
        let count = max(samples.count - 1, 1)
        for (index, sample) in samples.enumerated() {
            let x = left + Double(index) / Double(count) * plotWidth
            guard let total = sample.total else {
                svg +=
                    "<text x=\"\(fmt(x))\" y=\"\(fmt(second + 10))\" fill=\"#dc2626\" text-anchor=\"middle\">×</text>\n"
                continue
            }
            let y = second + panelHeight - Double(total) / 1e6 / maxValue * panelHeight
            let colour = sample.source == "presented" ? "#2563eb" : "#ea580c"
            svg += "<circle cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"2\" fill=\"\(colour)\"/>\n"
        }
        svg += ticks(horizontal: false, x: left, y: second, w: plotWidth, h: panelHeight, max: maxValue)
        svg += """
            <text x="\(left)" y="\(fmt(height - 8))" fill="#6b7280">dashed: vblank grid (multiples of the refresh \
            period\(refresh > 0 ? ", \(fmt(refresh)) ms" : ": unknown")); blue: presented, orange: frame callback \
            (no presented), red ×: lost</text>
            </svg>

            """
        return svg
    }

    private static func axes(x: Double, y: Double, w: Double, h: Double, xLabel: String, yLabel: String) -> String {
        """
        <path d="M\(fmt(x)) \(fmt(y)) V\(fmt(y + h)) H\(fmt(x + w))" stroke="black" fill="none"/>
        <text x="\(fmt(x + w / 2))" y="\(fmt(y + h + 34))" text-anchor="middle">\(xLabel)</text>
        <text x="\(fmt(x - 50))" y="\(fmt(y + h / 2))" transform="rotate(-90 \(fmt(x - 50)) \(fmt(y + h / 2)))" \
        text-anchor="middle">\(yLabel)</text>

        """
    }

    /// Dashed lines at every multiple of the refresh period (at most 40 of them).
    private static func vblankGrid(
        vertical: Bool, x: Double, y: Double, w: Double, h: Double, max: Double, refresh: Double
    ) -> String {
        guard refresh > 0, max / refresh <= 40 else { return "" }
        var out = ""
        var value = refresh
        while value <= max {
            if vertical {
                let px = x + value / max * w
                out += "<line x1=\"\(fmt(px))\" y1=\"\(fmt(y))\" x2=\"\(fmt(px))\" y2=\"\(fmt(y + h))\" "
            } else {
                let py = y + h - value / max * h
                out += "<line x1=\"\(fmt(x))\" y1=\"\(fmt(py))\" x2=\"\(fmt(x + w))\" y2=\"\(fmt(py))\" "
            }
            out += "stroke=\"#9ca3af\" stroke-dasharray=\"4 4\"/>\n"
            value += refresh
        }
        return out
    }

    /// Labelled ticks at round values along the latency axis (x for the histogram, y for the time series).
    private static func ticks(horizontal: Bool, x: Double, y: Double, w: Double, h: Double, max: Double) -> String {
        var out = ""
        let step = tickStep(max)
        var value = 0.0
        while value <= max {
            let fraction = value / max
            if horizontal {
                out += "<text x=\"\(fmt(x + fraction * w))\" y=\"\(fmt(y + h + 16))\" text-anchor=\"middle\">"
            } else {
                out += "<text x=\"\(fmt(x - 8))\" y=\"\(fmt(y + h - fraction * h + 4))\" text-anchor=\"end\">"
            }
            out += "\(fmt(value))</text>\n"
            value += step
        }
        return out
    }

    /// 1, 2 or 5 × a power of ten, giving at most 8 ticks up to `max`.
    static func tickStep(_ max: Double) -> Double {
        var power = 1.0
        while max / power > 80 { power *= 10 }
        while max / power < 8 && power > 1e-3 { power /= 10 }
        for factor in [1.0, 2, 5, 10] where max / (factor * power) <= 8 { return factor * power }
        return 10 * power
    }

    private static func rect(x: Double, y: Double, w: Double, h: Double, fill: String) -> String {
        "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(max(w, 0.5)))\" height=\"\(fmt(h))\" fill=\"\(fill)\"/>\n"
    }

    static func fmt(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
