// The header's checks (http_guard.h, issue 26): which Host, Origin,
// Content-Type and Authorization values pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/server/http_guard.h"

namespace fenec::server {
namespace {

TEST(HttpGuard, HostNamesTheListenAddressLocalhostOrAnAllowedName) {
  const auto names = AllowedHostNames("127.0.0.1", {"db.internal", "Box:8080"});
  for (const char* ok : {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1", "db.internal", "box:9"}) {
    EXPECT_TRUE(HostAllowed(ok, names)) << ok;
  }
  for (const char* bad : {"evil.example", "evil.example:8080", "127.0.0.2", "localhost.evil.example", "", "127.0.0.1:",
                          "127.0.0.1:x", "[::1]", "local host", "127.0.0.1@evil.example"}) {
    EXPECT_FALSE(HostAllowed(bad, names)) << bad;
  }
  const auto v6 = AllowedHostNames("::1", {});
  EXPECT_TRUE(HostAllowed("[::1]:8080", v6));
  EXPECT_FALSE(HostAllowed("127.0.0.1", v6));
  // A wildcard listener is reached on loopback too.
  const auto any = AllowedHostNames("0.0.0.0", {});
  EXPECT_TRUE(HostAllowed("127.0.0.1:80", any));
  EXPECT_TRUE(HostAllowed("[::1]", any));
  EXPECT_FALSE(HostAllowed("10.1.2.3", any));
}

TEST(HttpGuard, OriginMustBeThisServersOwn) {
  const auto names = AllowedHostNames("127.0.0.1", {"db.internal"});
  EXPECT_TRUE(OriginAllowed("http://127.0.0.1:8080", "127.0.0.1:8080", names));
  EXPECT_TRUE(OriginAllowed("http://localhost:8080", "127.0.0.1:8080", names));
  EXPECT_TRUE(OriginAllowed("https://db.internal", "db.internal", names));
  EXPECT_TRUE(OriginAllowed("http://db.internal", "db.internal:80", names));
  EXPECT_FALSE(OriginAllowed("http://evil.example", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://evil.example:8080", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://localhost:3000", "127.0.0.1:8080", names));  // another local page
  EXPECT_FALSE(OriginAllowed("null", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("file://", "127.0.0.1:8080", names));
  EXPECT_FALSE(OriginAllowed("http://127.0.0.1:8080/x", "127.0.0.1:8080", names));
}

TEST(HttpGuard, ContentTypeAndBearer) {
  EXPECT_TRUE(IsJsonContentType("application/json"));
  EXPECT_TRUE(IsJsonContentType("Application/JSON; charset=utf-8"));
  EXPECT_TRUE(IsJsonContentType(" application/json ;charset=UTF-8"));
  for (const char* bad : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/json-seq", "", "application/jsonx"}) {
    EXPECT_FALSE(IsJsonContentType(bad)) << bad;
  }
  EXPECT_TRUE(BearerMatches("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer s3cret!", "s3cret"));
  EXPECT_FALSE(BearerMatches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(BearerMatches("", "s3cret"));
  EXPECT_FALSE(BearerMatches("Bearer ", ""));
}

}  // namespace
}  // namespace fenec::server
