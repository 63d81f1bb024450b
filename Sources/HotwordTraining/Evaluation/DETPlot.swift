import Foundation

/// A detection-error-tradeoff plot as SVG: false alarms per hour (log scale) against miss rate,
/// one curve per series, the ≤ 1 and ≤ 0.1 per hour limits marked.
public enum DETPlot {
    public struct Series: Sendable {
        public var name: String
        public var points: [OperatingPoint]
        public init(name: String, points: [OperatingPoint]) {
            self.name = name
            self.points = points
        }
    }

    public static func svg(title: String, series: [Series]) -> String {
        let width = 640.0, height = 420.0, left = 70.0, right = 20.0, top = 40.0, bottom = 60.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let decades = (-2.0)...2.0  // 0.01 … 100 false alarms per hour
        let maxMiss = max(0.2, (series.flatMap(\.points).map(\.missRate).max() ?? 0.2).rounded(.up, toMultipleOf: 0.1))
        func x(_ perHour: Double) -> Double {
            let clamped = min(max(log10(max(perHour, 0.01)), decades.lowerBound), decades.upperBound)
            return left + (clamped - decades.lowerBound) / (decades.upperBound - decades.lowerBound) * plotWidth
        }
        func y(_ miss: Double) -> Double { top + (1 - min(miss, maxMiss) / maxMiss) * plotHeight }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(width / 2)" y="22" text-anchor="middle" font-size="15">\(escape(title))</text>

            """
        for decade in stride(from: decades.lowerBound, through: decades.upperBound, by: 1) {
            let px = x(pow(10, decade))
            svg += "<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(top + plotHeight)\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(px)\" y=\"\(top + plotHeight + 18)\" text-anchor=\"middle\">\(formatNumber(pow(10, decade)))</text>\n"
        }
        for tick in stride(from: 0.0, through: maxMiss + 1e-9, by: maxMiss / 4) {
            let py = y(tick)
            svg += "<line x1=\"\(left)\" y1=\"\(py)\" x2=\"\(left + plotWidth)\" y2=\"\(py)\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(left - 8)\" y=\"\(py + 4)\" text-anchor=\"end\">\(Int((tick * 100).rounded())) %</text>\n"
        }
        for limit in [0.1, 1.0] {
            svg += "<line x1=\"\(x(limit))\" y1=\"\(top)\" x2=\"\(x(limit))\" y2=\"\(top + plotHeight)\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/>\n"
        }
        svg += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"none\" stroke=\"black\"/>\n"
        svg += "<text x=\"\(left + plotWidth / 2)\" y=\"\(height - 18)\" text-anchor=\"middle\">false alarms per hour (log scale; dashed: 0.1 and 1)</text>\n"
        svg += "<text transform=\"translate(18 \(top + plotHeight / 2)) rotate(-90)\" text-anchor=\"middle\">miss rate</text>\n"
        let colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
        for (index, curve) in series.enumerated() {
            let colour = colours[index % colours.count]
            let sorted = curve.points.sorted { ($0.falseAlarmsPerHour, $1.missRate) < ($1.falseAlarmsPerHour, $0.missRate) }
            let path = sorted.map { "\(x($0.falseAlarmsPerHour)),\(y($0.missRate))" }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            for point in sorted {
                svg += "<circle cx=\"\(x(point.falseAlarmsPerHour))\" cy=\"\(y(point.missRate))\" r=\"3\" fill=\"\(colour)\"><title>sensitivity \(formatNumber(Double(point.sensitivity))): miss \(formatNumber(point.missRate * 100)) %, \(formatNumber(point.falseAlarmsPerHour)) false alarms/h</title></circle>\n"
            }
            svg += "<text x=\"\(left + plotWidth - 10)\" y=\"\(top + 18 + 16 * Double(index))\" text-anchor=\"end\" fill=\"\(colour)\">\(escape(curve.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    private static func formatNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", (value * 100).rounded() / 100)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension Double {
    func rounded(_ rule: FloatingPointRoundingRule, toMultipleOf step: Double) -> Double { (self / step).rounded(rule) * step }
}
