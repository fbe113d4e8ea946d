// Reading fio's json+ as a client prints it: the text before the document,
// the "All clients" sum left out, fio 3.33's zero sync.total_ios, a
// document cut short, and the lines that say a host was lost.
#include "iobench/src/fio_json.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fenec::iobench {
namespace fio_json_test {

std::string fixture() {
  std::ifstream in("iobench/src/testdata/fio-3.33-client.json", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FioJson, ReadsTheClientsDocumentAfterItsTextLines) {
  const std::string text = fixture();
  ASSERT_NE(text.find("Starting"), std::string::npos) << "the fixture opens with the servers' text";
  const FioOutput out = parse_fio_output(text);
  EXPECT_TRUE(out.problem.empty()) << out.problem;
  EXPECT_FALSE(out.truncated);
  EXPECT_EQ(out.fio_version, "fio-3.33");
  EXPECT_NE(out.text.find("Starting"), std::string::npos);
  ASSERT_EQ(out.jobs.size(), 4u) << "two hosts x two cells; 'All clients' left out";
  for (const FioJob& j : out.jobs) {
    EXPECT_NE(j.jobname, "All clients");
    EXPECT_FALSE(j.hostname.empty());
    EXPECT_GT(j.port, 0u);
    EXPECT_EQ(j.error, 0);
    EXPECT_GT(j.iops, 0);
    EXPECT_EQ(j.clat.binned(), j.clat.samples()) << "N and the bins agree";
    EXPECT_EQ(j.clat.samples(), j.total_ios);
    EXPECT_EQ(j.options.at("rw"), "write");
  }
}

TEST(FioJson, SyncCountIsTheBinsNNotTotalIos) {
  const FioOutput out = parse_fio_output(fixture());
  size_t syncing = 0;
  for (const FioJob& j : out.jobs) {
    if (j.options.count("fdatasync") == 0) continue;
    ++syncing;
    EXPECT_GT(j.sync.samples(), 0u) << "fio 3.33's sync.total_ios reads 0; the count is N beside the bins";
    EXPECT_EQ(j.sync.binned(), j.sync.samples());
    // One fdatasync a write, but for the last write of a run stopped between the two.
    EXPECT_LE(j.sync.samples(), j.total_ios);
    EXPECT_GE(j.sync.samples() + 1, j.total_ios);
  }
  EXPECT_EQ(syncing, 2u);
}

TEST(FioJson, KeepsTheWholeEntriesOfADocumentCutShort) {
  const std::string text = fixture();
  const FioOutput whole = parse_fio_output(text);
  // Cut inside the third entry: two whole entries before it.
  size_t at = text.find("\"jobname\"");
  for (int i = 0; i < 2; ++i) at = text.find("\"jobname\"", at + 1);
  ASSERT_NE(at, std::string::npos);
  const FioOutput cut = parse_fio_output(text.substr(0, at + 40));
  EXPECT_TRUE(cut.truncated);
  EXPECT_NE(cut.problem.find("truncated JSON: 2 whole job entries"), std::string::npos) << cut.problem;
  ASSERT_EQ(cut.jobs.size(), 2u);
  EXPECT_EQ(cut.jobs[0].hostname, whole.jobs[0].hostname);
  EXPECT_EQ(cut.jobs[1].clat, whole.jobs[1].clat);
  EXPECT_EQ(cut.fio_version, "fio-3.33");
  // Cut inside the first: nothing whole.
  const FioOutput early = parse_fio_output(text.substr(0, text.find("\"jobname\"") + 10));
  EXPECT_TRUE(early.truncated);
  EXPECT_TRUE(early.jobs.empty());
}

TEST(FioJson, NamesHostsTheClientLostOrCouldNotReach) {
  const std::string out =
      "<vm> Starting 1 process\nclient: host=10.0.0.3 disconnected\n<vm> \n\n" + fixture().substr(fixture().find("{\n"));
  const FioOutput r = parse_fio_output(out, "fio: connect: Connection refused\nfio: failed to connect to 10.0.0.4:8765\n");
  EXPECT_EQ(r.disconnected, std::vector<std::string>{"10.0.0.3"});
  EXPECT_EQ(r.unreachable, std::vector<std::string>{"10.0.0.4:8765"});
  const FioOutput v = parse_fio_output("", "fio: bad server cmd version 98\n");
  EXPECT_EQ(v.version_errors, std::vector<std::string>{"98"});
  // A killed server fio noticed by a command's timeout, not the connection's end.
  const FioOutput t = parse_fio_output("", "fio: client 127.0.0.3, timeout on cmd SEND_ETA\nfio: client 127.0.0.5 x\n");
  EXPECT_EQ(t.timed_out, std::vector<std::string>{"127.0.0.3"});
  EXPECT_TRUE(t.disconnected.empty());
}

TEST(FioJson, SaysWhyWhenThereIsNoDocument) {
  EXPECT_EQ(parse_fio_output("").problem, "no output");
  EXPECT_EQ(parse_fio_output("fio: failed to connect\n").problem, "no JSON document in the output");
  const FioOutput bad = parse_fio_output("{\n \"jobs\": [ 1, ]\n}\n");
  EXPECT_NE(bad.problem.find("does not parse"), std::string::npos) << bad.problem;
}

TEST(FioJson, ALocalRunsJobsHaveNoHost) {
  const std::string doc =
      "note: both iodepth >= 1 and synchronous I/O engine are selected\n{\n"
      "  \"fio version\" : \"fio-3.33\",\n  \"global options\" : { \"bs\" : \"16k\" },\n"
      "  \"jobs\" : [ { \"jobname\" : \"w\", \"error\" : 0, \"job options\" : { \"rw\" : \"write\", \"direct\" : \"1\","
      " \"sync\" : \"dsync\" },\n  \"write\" : { \"iops\" : 10.5, \"runtime\" : 1000, \"total_ios\" : 3,"
      " \"io_bytes\" : 49152, \"clat_ns\" : { \"N\" : 3, \"percentile\" : { \"50.000000\" : 5408 },"
      " \"bins\" : { \"5408\" : 2, \"6112\" : 1 } } },\n  \"sync\" : { \"total_ios\" : 0, \"lat_ns\" : { \"N\" : 0 } } } ]\n}\n";
  const FioOutput out = parse_fio_output(doc);
  ASSERT_TRUE(out.problem.empty()) << out.problem;
  ASSERT_EQ(out.jobs.size(), 1u);
  const FioJob& j = out.jobs[0];
  EXPECT_TRUE(j.hostname.empty());
  EXPECT_EQ(j.clat.samples(), 3u);
  EXPECT_EQ(j.clat.percentile(50), 5408u);
  EXPECT_TRUE(j.sync.empty());
  const FioJobShape s = shape_of(j.options);
  EXPECT_EQ(s.bs, 16384u) << "the global section's bs, under the job's own options";
  EXPECT_TRUE(s.direct && s.dsync);
  EXPECT_FALSE(s.buffered);
}

TEST(FioJson, ShapeReadsFiosOptionNames) {
  FioJobShape s = shape_of({{"rw", "write"}, {"bs", "4k"}, {"fdatasync", "1"}, {"overwrite", "1"},
                            {"numjobs", "16"}, {"ioengine", "io_uring"}});
  EXPECT_EQ(s.bs, 4096u);
  EXPECT_TRUE(s.fdatasync && s.overwrite);
  EXPECT_FALSE(s.buffered || s.direct || s.dsync);
  EXPECT_EQ(s.numjobs, 16u);
  EXPECT_EQ(s.ioengine, "io_uring");
  EXPECT_TRUE(shape_of({{"rw", "write"}}).buffered);
  EXPECT_FALSE(shape_of({{"sync", "none"}}).dsync);
}

}  // namespace fio_json_test
}  // namespace fenec::iobench
