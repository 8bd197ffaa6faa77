package org.acc4j.report;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;

/** Grouped bar charts written as PNG with XChart: one category per benchmark, one series per mode or variant. */
public final class Charts {
    private static final Color[] PALETTE = {new Color(0x4C72B0), new Color(0xDD8452), new Color(0x55A868),
        new Color(0xC44E52), new Color(0x8172B3), new Color(0x937860), new Color(0x64B5CD)};

    private Charts() {
    }

    /**
     * Data of one chart: categories along x and, per series, one value per category (null where there is none).
     */
    public static final class Bars {
        final List<String> categories = new ArrayList<>();
        final Map<String, List<Double>> series = new LinkedHashMap<>();

        /** Sets a value, adding its category and its series on first use. */
        public Bars put(String category, String serie, Double value) {
            int at = categories.indexOf(category);
            if (at < 0) {
                categories.add(category);
                series.values().forEach(v -> v.add(null));
                at = categories.size() - 1;
            }
            List<Double> v = series.computeIfAbsent(serie, k -> {
                List<Double> l = new ArrayList<>();
                categories.forEach(c -> l.add(null));
                return l;
            });
            v.set(at, value);
            return this;
        }

        public boolean isEmpty() {
            return series.values().stream().allMatch(v -> v.stream().allMatch(x -> x == null));
        }
    }

    /** Writes {@code bars} to {@code file} (.png); a log y axis when {@code log}. */
    public static void write(Path file, String title, String yTitle, Bars bars, boolean log) {
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(520).title(title).yAxisTitle(yTitle)
                .build();
        Styler s = chart.getStyler();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setXAxisLabelRotation(bars.categories.size() > 6 ? 30 : 0);
        chart.getStyler().setYAxisLogarithmic(log);
        if (log) {
            // XChart's log axis needs explicit bounds for bars; whole decades around the data
            double min = bars.series.values().stream().flatMap(List::stream).filter(v -> v != null && v > 0)
                    .mapToDouble(Double::doubleValue).min().orElse(1);
            double max = bars.series.values().stream().flatMap(List::stream).filter(v -> v != null && v > 0)
                    .mapToDouble(Double::doubleValue).max().orElse(10);
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
            chart.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max * 1.0001))));
        }
        chart.getStyler().setSeriesColors(PALETTE);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridVerticalLinesVisible(false);
        chart.getStyler().setAvailableSpaceFill(0.8);
        chart.getStyler().setOverlapped(false);
        s.setDecimalPattern(log ? "#,##0.######" : "#,##0.###");
        for (Map.Entry<String, List<Double>> e : bars.series.entrySet()) {
            List<Double> values = new ArrayList<>();
            for (Double v : e.getValue()) {
                // a missing bar is null; a log axis cannot show 0 or less either
                values.add(v == null || (log && v <= 0) ? null : v);
            }
            CategorySeries series = chart.addSeries(e.getKey(), bars.categories, values);
            series.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Bar);
        }
        try {
            Files.createDirectories(file.getParent());
            String name = file.toString();
            BitmapEncoder.saveBitmap(chart, name.endsWith(".png") ? name.substring(0, name.length() - 4) : name,
                    BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
    }
}
