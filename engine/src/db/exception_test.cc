// An exception the engine does not expect, thrown while a write holds the
// lock (rows half landed), makes the database fail-stop: that write and
// every later one is refused, reads go on, and a reopen recovers every
// acknowledged write. Nothing is acknowledged and then lost, and the process
// does not terminate.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "fenec/database.h"
#include "engine/src/base/testing.h"

namespace fenec {
namespace exception_test {

// Throws from the data file's writes once armed: a write the engine makes
// under its lock in BufferWrite::kUnderLock.
class ThrowingEnv : public EnvWrapper {
 public:
  ThrowingEnv() : EnvWrapper(Env::Default()) {}
  std::atomic<bool> armed{false};
  std::atomic<int> thrown{0};

  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    if (Status s = EnvWrapper::Open(path, mode, &f); !s.ok()) return s;
    if (path.ends_with("data.fdb")) {
      *out = std::make_unique<Throwing>(std::move(f), this);
    } else {
      *out = std::move(f);
    }
    return Status::OK();
  }

 private:
  class Throwing : public FileWrapper {
   public:
    Throwing(std::unique_ptr<File> f, ThrowingEnv* env) : FileWrapper(std::move(f)), env_(env) {}
    Status Write(uint64_t offset, std::span<const uint8_t> data) override {
      Throw();
      return FileWrapper::Write(offset, data);
    }
    Status WriteV(uint64_t offset, std::span<const iovec> parts) override {
      Throw();
      return FileWrapper::WriteV(offset, parts);
    }

   private:
    void Throw() {
      if (env_->armed.exchange(false)) {
        ++env_->thrown;
        throw std::runtime_error("injected");
      }
    }
    ThrowingEnv* env_;
  };
};

TEST(Exceptions, AThrowUnderTheWriteLockFailStopsAndLosesNothingAcknowledged) {
  base::ScratchDir dir;
  ThrowingEnv env;
  Options o;
  o.env = &env;
  o.buffer_write = BufferWrite::kUnderLock;
  o.write_buffer_bytes = 4096;
  o.checkpoint_on_close = false;
  uint64_t acked = 0;
  {
    auto db = Database::Open(dir.path(), o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto c = (*db)->CreateCollection("t", Schema{{Field::Text("s")}});
    ASSERT_TRUE(c.ok());
    env.armed = true;
    Status failed;
    for (int i = 0; i < 1000 && failed.ok(); ++i) {
      auto id = (*db)->Put(*c, {Value(std::string(300, 'a' + i % 26))});
      if (id.ok()) {
        ++acked;
      } else {
        failed = id.status();
      }
    }
    ASSERT_EQ(env.thrown.load(), 1);
    EXPECT_EQ(failed.code(), StatusCode::kFailStopped) << failed.ToString();
    EXPECT_NE(failed.ToString().find("injected"), std::string::npos) << failed.ToString();
    EXPECT_EQ((*db)->Put(*c, {Value("after")}).status().code(), StatusCode::kFailStopped);
    EXPECT_EQ((*db)->WriteState().code(), StatusCode::kFailStopped);
    EXPECT_TRUE((*db)->Count(*c).ok());  // reads go on
  }
  o.env = nullptr;
  auto db = Database::Open(dir.path(), o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = (*db)->FindCollection("t");
  ASSERT_TRUE(c.ok());
  // Every acknowledged put is there; the one that threw was never acknowledged.
  EXPECT_GE(*(*db)->Count(*c), acked);
  EXPECT_LE(*(*db)->Count(*c), acked + 1);
  for (DocId id = 1; id <= acked; ++id) EXPECT_TRUE((*db)->Get(*c, id).ok()) << id;
  EXPECT_TRUE((*db)->Check().ok());
}

}  // namespace exception_test
}  // namespace fenec
