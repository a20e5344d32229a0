// gnuplot charts (plot.h).
#include "scheduler/sim/plot.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace canopy::sim {
namespace {

constexpr int kUtilBins = 400;

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Utilization averaged over kUtilBins equal bins of the run, in hours since the first submit.
std::string UtilData(const PlotRun& run) {
  const auto& pts = run.series.busy_gpus;
  std::string out = "# hours utilization\n";
  if (pts.empty() || run.total_gpus <= 0) {
    return out;
  }
  const double end = std::max(pts.back().first, 1.0);
  const double width = end / kUtilBins;
  std::vector<double> area(kUtilBins, 0);
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    double a = pts[i].first;
    const double b = pts[i + 1].first;
    while (a < b) {
      const int bin = std::min(kUtilBins - 1, static_cast<int>(a / width));
      const double stop = std::min(b, (bin + 1) * width);
      area[bin] += static_cast<double>(pts[i].second) * (stop - a);
      a = stop > a ? stop : b;
    }
  }
  for (int i = 0; i < kUtilBins; ++i) {
    absl::StrAppend(&out, absl::StrFormat("%.4f %.5f\n", (i + 0.5) * width / 3600.0,
                                          area[i] / (width * run.total_gpus)));
  }
  return out;
}

std::string WaitData(const PlotRun& run) {
  std::vector<double> w = run.series.waits_s;
  std::sort(w.begin(), w.end());
  std::string out = "# wait_s fraction_of_jobs\n";
  const size_t step = std::max<size_t>(1, w.size() / 2000);
  for (size_t i = 0; i < w.size(); i += step) {
    absl::StrAppend(&out, absl::StrFormat("%.1f %.5f\n", std::max(w[i], 1.0),
                                          static_cast<double>(i + 1) / w.size()));
  }
  if (!w.empty()) {
    absl::StrAppend(&out, absl::StrFormat("%.1f 1.0\n", std::max(w.back(), 1.0)));
  }
  return out;
}

std::string LeafData(const PlotRun& run) {
  std::map<int32_t, int64_t> hist;
  for (int32_t l : run.series.leaf_switches) {
    ++hist[l];
  }
  std::string out = "# leaf_switches jobs\n";
  for (const auto& [l, n] : hist) {
    absl::StrAppend(&out, l, " ", n, "\n");
  }
  return out;
}

}  // namespace

absl::Status WritePlots(const std::string& dir, const std::vector<PlotRun>& runs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  std::string util = "plot ", waits = "plot ", leaves = "plot ";
  for (size_t i = 0; i < runs.size(); ++i) {
    const PlotRun& r = runs[i];
    const std::string sep = i + 1 < runs.size() ? ", \\\n     " : "\n";
    for (auto [suffix, data] : {std::pair<const char*, std::string>{"util", UtilData(r)},
                                {"waits", WaitData(r)},
                                {"leaves", LeafData(r)}}) {
      if (absl::Status s = WriteFile(absl::StrCat(dir, "/", r.label, "_", suffix, ".dat"), data);
          !s.ok()) {
        return s;
      }
    }
    absl::StrAppend(&util, "'", r.label, "_util.dat' using 1:2 with lines title '", r.label, "'",
                    sep);
    absl::StrAppend(&waits, "'", r.label, "_waits.dat' using 1:2 with lines title '", r.label, "'",
                    sep);
    absl::StrAppend(&leaves, "'", r.label, "_leaves.dat' using ($1+", (i - 1.0) * 0.25,
                    "):2 with boxes title '", r.label, "'", sep);
  }
  const std::string script = absl::StrCat(
      "# Written by canopy-sim --plot; run: gnuplot plots.gp\n",
      "set terminal pngcairo size 900,500 noenhanced\n", "set key top right\nset grid\n",
      "set output 'util.png'\nset title 'GPU utilization over time'\n",
      "set xlabel 'hours since first submit'\nset ylabel 'allocated GPUs / all GPUs'\n",
      "set yrange [0:1]\n", util,
      "set output 'waits.png'\nset title 'Wait time distribution (CDF)'\n",
      "set logscale x\nset xlabel 'wait (s, log scale; 0 shown as 1)'\n",
      "set ylabel 'fraction of jobs'\nset yrange [0:1]\n", waits, "unset logscale x\n",
      "set output 'leaves.png'\nset title 'Leaf switches per multi-node job'\n",
      "set xlabel 'leaf switches'\nset ylabel 'jobs'\nset yrange [0:*]\n",
      "set style fill solid 0.6\nset boxwidth 0.25\nset xtics 1\n", leaves);
  if (absl::Status s = WriteFile(dir + "/plots.gp", script); !s.ok()) {
    return s;
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gnuplot is not installed (Debian: apt-get install gnuplot-nox); the data and ", dir,
        "/plots.gp were written, run gnuplot there"));
  }
  const std::string cmd = absl::StrCat("cd '", dir, "' && gnuplot plots.gp");
  if (std::system(cmd.c_str()) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("gnuplot failed in ", dir));
  }
  return absl::OkStatus();
}

}  // namespace canopy::sim
