#include "engine/src/base/testing.h"
#include "iobench/kit/results.h"
#include "engine/src/base/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/src/base/histogram.h"

namespace fenec::kit {
namespace results_test {

namespace fs = std::filesystem;

Metadata fixed_meta() {
  Metadata m;
  m.set("host", "box");
  m.set("commit", "abc123");
  m.set("quick", "true");
  return m;
}

Results sample() {
  Results r("io", fixed_meta());
  r.add("IO-1", "direct-dsync+uring", "size=4k;jobs=1", "iops", 12345, "ops/s");
  r.add("", "buffered", "size=16k", "MB/s", 123.456789, "MB/s");
  r.skip("odirect", "size=4k", "tmpfs has no O_DIRECT");
  r.verdict({"IO-1", "small writes lose", "3x", "2.8x", Outcome::kReproduced, "", "plots/io/iops.png"});
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Results, CsvExactText) {
  const std::string want =
      "# commit=abc123\n"
      "# host=box\n"
      "# quick=true\n"
      "# scenario=io\n"
      "# skip arm=odirect case=size=4k reason=tmpfs has no O_DIRECT\n"
      "finding,scenario,arm,case,metric,value,unit\n"
      "IO-1,io,direct-dsync+uring,size=4k;jobs=1,iops,12345,ops/s\n"
      ",io,buffered,size=16k,MB/s,123.457,MB/s\n";
  EXPECT_EQ(sample().csv(), want);
}

TEST(Results, JsonExactText) {
  Results r = sample();
  r.attach_json("hist", "{\"count\":0}");
  const std::string want =
      "{\n"
      "  \"metadata\": {\"commit\": \"abc123\", \"host\": \"box\", \"quick\": \"true\", "
      "\"scenario\": \"io\"},\n"
      "  \"rows\": [\n"
      "    {\"finding\": \"IO-1\", \"scenario\": \"io\", \"arm\": \"direct-dsync+uring\", "
      "\"case\": \"size=4k;jobs=1\", \"metric\": \"iops\", \"value\": 12345, \"unit\": \"ops/s\"},\n"
      "    {\"finding\": \"\", \"scenario\": \"io\", \"arm\": \"buffered\", \"case\": \"size=16k\", "
      "\"metric\": \"MB/s\", \"value\": 123.457, \"unit\": \"MB/s\"}\n"
      "  ],\n"
      "  \"skips\": [\n"
      "    {\"scenario\": \"io\", \"arm\": \"odirect\", \"case\": \"size=4k\", \"reason\": \"tmpfs "
      "has no O_DIRECT\"}\n"
      "  ],\n"
      "  \"verdicts\": [\n"
      "    {\"finding\": \"IO-1\", \"claim\": \"small writes lose\", \"source\": \"3x\", \"ours\": "
      "\"2.8x\", \"verdict\": \"reproduced\", \"reason\": \"\", \"plot\": \"plots/io/iops.png\"}\n"
      "  ],\n"
      "  \"hist\": {\"count\":0}\n"
      "}\n";
  EXPECT_EQ(r.json(), want);
}

TEST(Results, EmptyJsonHasEveryArray) {
  Results r("x", Metadata{});
  EXPECT_EQ(r.json(),
            "{\n  \"metadata\": {\"scenario\": \"x\"},\n  \"rows\": [],\n  \"skips\": [],\n"
            "  \"verdicts\": []\n}\n");
}

TEST(Results, CsvQuotesOnlyWhenNeeded) {
  Results r("s", Metadata{});
  r.add("F", "a,b", "say \"hi\"", "two\nlines", 1, "plain");
  const std::string csv = r.csv();
  EXPECT_NE(csv.find("F,s,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",1,plain\n"), std::string::npos)
      << csv;
}

TEST(Results, CommentLinesStayOneLine) {
  Metadata m;
  m.set("note", "a\nb");
  Results r("s", m);
  r.skip("arm", "case", "line1\nline2");
  EXPECT_NE(r.csv().find("# note=a b\n"), std::string::npos);
  EXPECT_NE(r.csv().find("reason=line1 line2\n"), std::string::npos);
}

TEST(Results, FormatValue) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(-7), "-7");
  EXPECT_EQ(format_value(-0.0), "0");
  EXPECT_EQ(format_value(1e12), "1000000000000");
  EXPECT_EQ(format_value(123456789012345.0), "123456789012345");
  EXPECT_EQ(format_value(2.5), "2.5");
  EXPECT_EQ(format_value(1.0 / 3), "0.333333");
  EXPECT_EQ(format_value(1234567.8), "1234568");
  EXPECT_EQ(format_value(1e20), "1e+20");
  EXPECT_EQ(format_value(std::nan("")), "nan");
  EXPECT_EQ(format_value(INFINITY), "inf");
}

TEST(Results, JsonHasNoNan) {
  Results r("s", Metadata{});
  r.add("", "a", "c", "m", std::nan(""), "u");
  EXPECT_NE(r.json().find("\"value\": null"), std::string::npos);
}

TEST(Results, JsonEscape) {
  EXPECT_EQ(base::JsonEscape("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
  EXPECT_EQ(base::JsonEscape("µs"), "µs");
}

TEST(Results, AddLatencyWritesSixRowsWithPrefix) {
  base::Histogram h;
  h.RecordN(2000, 10);  // 2 us
  Results r("s", Metadata{});
  r.add_latency("CC-1", "arm", "case", h, "sync");
  ASSERT_EQ(r.rows().size(), 6u);
  const char* names[] = {"sync_p50_us", "sync_p90_us", "sync_p99_us",
                         "sync_p999_us", "sync_max_us", "sync_mean_us"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.rows()[i].metric, names[i]);
    EXPECT_DOUBLE_EQ(r.rows()[i].value, 2.0);
    EXPECT_EQ(r.rows()[i].unit, "us");
    EXPECT_EQ(r.rows()[i].finding, "CC-1");
  }
}

TEST(Results, HistogramJson) {
  base::Histogram h;
  h.RecordN(3, 2);
  h.Record(5);
  EXPECT_EQ(histogram_json(h),
            "{\"count\":3,\"min\":3,\"max\":5,\"mean\":3.66667,\"p50\":3,\"p90\":5,\"p99\":5,"
            "\"p999\":5,\"bins\":[[3,3,2],[5,5,1]]}");
}

TEST(Results, MarkIncompleteAndAttachReplace) {
  Results r = sample();
  r.mark_incomplete("interrupted");
  r.attach_json("k", "1");
  r.attach_json("k", "2");
  EXPECT_NE(r.csv().find("# incomplete=interrupted\n"), std::string::npos);
  const std::string j = r.json();
  EXPECT_NE(j.find("\"k\": 2\n"), std::string::npos);
  EXPECT_EQ(j.find("\"k\": 1"), std::string::npos);
}

TEST(Results, VerdictsMarkdown) {
  Results r = sample();
  r.verdict({"CC-1", "a | b", "1", "2", Outcome::kNotReproduced, "x 1.1x [1.0, 1.2] >= 2: missed", ""});
  EXPECT_EQ(r.verdicts_markdown(),
            "| finding | claim | source | ours | verdict | why | plot |\n"
            "|---|---|---|---|---|---|---|\n"
            "| IO-1 | small writes lose | 3x | 2.8x | reproduced |  | "
            "[plots/io/iops.png](../plots/io/iops.png) |\n"
            "| CC-1 | a \\| b | 1 | 2 | not reproduced | x 1.1x [1.0, 1.2] >= 2: missed |  |\n"
            "\nSkipped: arm `odirect` case `size=4k`: tmpfs has no O_DIRECT\n");
}

TEST(Results, VerdictsMarkdownWithoutVerdicts) {
  Results r("s", Metadata{});
  EXPECT_EQ(r.verdicts_markdown(), "_No finding judged in this run._\n");
}

TEST(Results, WriteDirWritesFourFiles) {
  base::ScratchDir scratch("results-test");
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const fs::path dir = scratch.path();
  Results r = sample();
  ASSERT_EQ(r.write_dir((dir / "io").string()), "");
  int csvs = 0, others = 0;
  for (const auto& e : fs::directory_iterator(dir / "io")) {
    (e.path().extension() == ".csv" ? csvs : others)++;
  }
  EXPECT_EQ(csvs, 2);    // latest.csv + the dated copy
  EXPECT_EQ(others, 2);  // latest.json + verdicts.md, and no leftover .tmp
  EXPECT_EQ(slurp(dir / "io" / "latest.csv"), r.csv());
  EXPECT_EQ(slurp(dir / "io" / "latest.json"), r.json());
  EXPECT_EQ(slurp(dir / "io" / "verdicts.md"), r.verdicts_markdown());
  ASSERT_EQ(r.write_csv((dir / "one.csv").string()), "");
  EXPECT_EQ(slurp(dir / "one.csv"), r.csv());
  EXPECT_NE(r.write_csv("/proc/nonexistent/x.csv"), "");
}

TEST(Metadata, CollectFillsEveryKey) {
  const Metadata m = Metadata::collect(fs::temp_directory_path().string() + "/does/not/exist", true);
  for (const char* k : {"commit", "host", "kernel", "filesystem", "device", "date", "quick", "cpus",
                        "mem"}) {
    ASSERT_TRUE(m.kv.count(k)) << k;
    EXPECT_FALSE(m.kv.at(k).empty()) << k;
  }
  EXPECT_EQ(m.kv.at("quick"), "true");
  EXPECT_NE(m.kv.at("filesystem"), "unknown");
  EXPECT_NE(m.kv.at("kernel"), "unknown");
  // ISO 8601 UTC: 2024-01-02T03:04:05Z
  EXPECT_EQ(m.kv.at("date").size(), 20u);
  EXPECT_EQ(m.kv.at("date").back(), 'Z');
  EXPECT_EQ(Metadata::collect(".", false).kv.at("quick"), "false");
}

}  // namespace results_test
}  // namespace fenec::kit
