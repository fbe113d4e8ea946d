#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "fenec/env.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace env_test {

std::vector<uint8_t> Bytes(size_t n, uint8_t v) { return std::vector<uint8_t>(n, v); }

std::vector<uint8_t> ReadAll(Env* env, const std::string& path) {
  std::unique_ptr<File> f;
  EXPECT_TRUE(env->Open(path, OpenMode::kRead, &f).ok());
  uint64_t size = 0;
  EXPECT_TRUE(f->Size(&size).ok());
  std::vector<uint8_t> out(size);
  size_t got = 0;
  EXPECT_TRUE(f->Read(0, out, &got).ok());
  out.resize(got);
  return out;
}

TEST(PosixEnv, CountsWritesAndSyncs) {
  base::ScratchDir dir;
  Env* env = Env::Default();
  EnvCounters before = env->counters();
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->Open(dir.path() + "/a", OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(f->Write(0, Bytes(100, 1)).ok());
  std::vector<uint8_t> a = Bytes(10, 2), b = Bytes(20, 3);
  iovec parts[2] = {{a.data(), a.size()}, {b.data(), b.size()}};
  ASSERT_TRUE(f->WriteV(100, parts).ok());
  ASSERT_TRUE(f->Sync().ok());
  EnvCounters after = env->counters();
  // Other tests in this binary run serially, so the deltas are ours alone.
  EXPECT_EQ(after.writes - before.writes, 2u);
  EXPECT_EQ(after.write_bytes - before.write_bytes, 130u);
  EXPECT_EQ(after.syncs - before.syncs, 1u);
  auto all = ReadAll(env, dir.path() + "/a");
  ASSERT_EQ(all.size(), 130u);
  EXPECT_EQ(all[105], 2);
  EXPECT_EQ(all[125], 3);
}

TEST(PosixEnv, ErrorsCarryOpPathAndErrno) {
  std::unique_ptr<File> f;
  Status s = Env::Default()->Open("/nonexistent-dir/x", OpenMode::kRead, &f);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.err(), ENOENT);
  EXPECT_EQ(s.op(), "open");
  EXPECT_NE(s.ToString().find("/nonexistent-dir/x"), std::string::npos);
}

TEST(PosixEnv, MapSeesLaterWrites) {
  base::ScratchDir dir;
  Env* env = Env::Default();
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->Open(dir.path() + "/m", OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(f->Write(0, Bytes(4096, 7)).ok());
  const uint8_t* base = nullptr;
  ASSERT_TRUE(f->Map(1ull << 30, &base).ok());
  EXPECT_EQ(base[100], 7);
  ASSERT_TRUE(f->Write(4096, Bytes(8192, 9)).ok());  // grows the file past the first mapping's pages
  EXPECT_EQ(base[4096 + 5000], 9);
}

TEST(FaultEnv, DropAllRestoresLastSyncedState) {
  base::ScratchDir dir;
  FaultEnv env;
  std::string path = dir.path() + "/f";
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(path, OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  ASSERT_TRUE(f->Write(0, Bytes(1000, 1)).ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(f->Write(500, Bytes(1000, 2)).ok());  // overwrites and extends
  ASSERT_TRUE(f->Write(600, Bytes(100, 3)).ok());
  EXPECT_EQ(env.unsynced_writes(), 2u);
  f.reset();
  env.Crash();
  CrashReport r = env.ApplyCrash(1, CrashPolicy{.keep = 0, .garble = 0});
  EXPECT_EQ(r.writes, 2u);
  EXPECT_EQ(r.sectors_kept, 0u);
  EXPECT_EQ(ReadAll(&env, path), Bytes(1000, 1));
}

TEST(FaultEnv, KeepAllKeepsEverything) {
  base::ScratchDir dir;
  FaultEnv env;
  std::string path = dir.path() + "/f";
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(path, OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  ASSERT_TRUE(f->Write(0, Bytes(2000, 4)).ok());
  f.reset();
  env.Crash();
  env.ApplyCrash(2, CrashPolicy{.keep = 1, .garble = 0});
  EXPECT_EQ(ReadAll(&env, path), Bytes(2000, 4));
}

TEST(FaultEnv, MixedCrashTouchesOnlyUnsyncedSectors) {
  uint64_t seed = base::TestSeed();
  base::ScratchDir dir;
  FaultEnv env;
  std::string path = dir.path() + "/f";
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(path, OpenMode::kCreate, &f).ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  ASSERT_TRUE(f->Write(0, Bytes(4096, 1)).ok());
  ASSERT_TRUE(f->Sync().ok());
  ASSERT_TRUE(f->Write(4096, Bytes(64 * 512, 2)).ok());
  f.reset();
  env.Crash();
  CrashReport r = env.ApplyCrash(seed);
  EXPECT_EQ(r.sectors_kept + r.sectors_dropped + r.sectors_garbled, 64u);
  auto all = ReadAll(&env, path);
  ASSERT_GE(all.size(), 4096u);
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(all[i], 1) << "synced byte " << i << " changed";
}

TEST(FaultEnv, UnsyncedCreateMayVanishSyncedDirKeepsIt) {
  base::ScratchDir dir;
  FaultEnv env;
  std::unique_ptr<File> a, b;
  ASSERT_TRUE(env.Open(dir.path() + "/kept", OpenMode::kCreate, &a).ok());
  ASSERT_TRUE(env.SyncDir(dir.path()).ok());
  ASSERT_TRUE(env.Open(dir.path() + "/lost", OpenMode::kCreate, &b).ok());
  a.reset();
  b.reset();
  env.Crash();
  CrashReport r = env.ApplyCrash(3, CrashPolicy{.keep = 0, .garble = 0});
  EXPECT_EQ(r.files_removed, 1u);
  EXPECT_TRUE(env.Exists(dir.path() + "/kept"));
  EXPECT_FALSE(env.Exists(dir.path() + "/lost"));
}

TEST(FaultEnv, FailNthFiresOnceOrSticky) {
  base::ScratchDir dir;
  FaultEnv env;
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(dir.path() + "/f", OpenMode::kCreate, &f).ok());
  env.FailNth(FaultOp::kSync, 2, EIO);
  EXPECT_TRUE(f->Sync().ok());
  Status s = f->Sync();
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_EQ(s.err(), EIO);
  EXPECT_TRUE(f->Sync().ok());
  env.FailNth(FaultOp::kWrite, 1, ENOSPC, "/f", /*sticky=*/true);
  EXPECT_EQ(f->Write(0, Bytes(1, 1)).code(), StatusCode::kNoSpace);
  EXPECT_EQ(f->Write(0, Bytes(1, 1)).code(), StatusCode::kNoSpace);
  EXPECT_EQ(env.faults_fired(), 2u);
}

TEST(FaultEnv, CrashRefusesWrites) {
  base::ScratchDir dir;
  FaultEnv env;
  std::unique_ptr<File> f;
  ASSERT_TRUE(env.Open(dir.path() + "/f", OpenMode::kCreate, &f).ok());
  env.Crash();
  EXPECT_FALSE(f->Write(0, Bytes(1, 1)).ok());
  EXPECT_FALSE(f->Sync().ok());
}

}  // namespace env_test
}  // namespace fenec
