// The one status scheme of the pages, as a browser paints it: a real headless Chromium (the
// Debian package, scripts/install-deps.sh) screenshots a page and the test counts the pixels of
// each status colour. The accept page once painted failed rows bold green; this is the check
// that a person looking at the page would make.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "report/document.h"
#include "test_support.h"

namespace gpuplan::report {
namespace {

using gpuplan::testing::read_file;
using gpuplan::testing::temp_dir;
using gpuplan::testing::write_file;

struct Rgb {
  uint8_t r, g, b;
  bool operator<(const Rgb& o) const { return std::tie(r, g, b) < std::tie(o.r, o.g, o.b); }
};

// The scheme (report/document.cpp kCssStatus), written out by hand: pass #1a7f37, info
// #175cd3, warn #b54708, fail #b42318, needs-evidence #6941c6.
const std::map<Severity, Rgb> kScheme = {{Severity::kPass, {0x1a, 0x7f, 0x37}},
                                         {Severity::kInfo, {0x17, 0x5c, 0xd3}},
                                         {Severity::kWarn, {0xb5, 0x47, 0x08}},
                                         {Severity::kFail, {0xb4, 0x23, 0x18}},
                                         {Severity::kNeedsEvidence, {0x69, 0x41, 0xc6}}};

uint32_t be32(const std::string& s, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24 | static_cast<uint8_t>(s[at + 1]) << 16 |
         static_cast<uint8_t>(s[at + 2]) << 8 | static_cast<uint8_t>(s[at + 3]);
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// How many pixels of each colour an 8-bit RGB or RGBA PNG has (Chromium writes RGB); empty when
// the file is not such a PNG. PNG: signature, chunks, IDAT inflated, each row unfiltered.
std::map<Rgb, size_t> colour_counts(const std::string& png) {
  if (png.size() < 33 || png.compare(1, 3, "PNG") != 0) return {};
  uint32_t width = 0, height = 0;
  int channels = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t length = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) return {};
    if (type == "IHDR") {
      width = be32(png, at + 8);
      height = be32(png, at + 12);
      const int depth = png[at + 16], colour_type = png[at + 17];
      if (depth != 8 || (colour_type != 2 && colour_type != 6)) return {};
      channels = colour_type == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  const size_t stride = static_cast<size_t>(width) * channels;
  std::vector<uint8_t> raw((stride + 1) * height);
  uLongf raw_size = raw.size();
  if (channels == 0 ||
      uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_size != raw.size())
    return {};
  std::vector<uint8_t> prev(stride, 0), row(stride);
  std::map<Rgb, size_t> counts;
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t* in = &raw[y * (stride + 1)];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<size_t>(channels) ? row[x - channels] : 0, b = prev[x],
                c = x >= static_cast<size_t>(channels) ? prev[x - channels] : 0;
      const int predictor = in[0] == 1   ? a
                            : in[0] == 2 ? b
                            : in[0] == 3 ? (a + b) / 2
                            : in[0] == 4 ? paeth(a, b, c)
                                         : 0;
      row[x] = static_cast<uint8_t>(in[1 + x] + predictor);
    }
    for (size_t x = 0; x < stride; x += channels) ++counts[{row[x], row[x + 1], row[x + 2]}];
    prev = row;
  }
  return counts;
}

// The page as Chromium paints it, counted by colour; the test fails when no screenshot comes.
std::map<Rgb, size_t> screenshot(const std::string& page) {
  const std::string dir = temp_dir();
  const std::string html = write_file(dir, "page.html", page);
  const std::string png = dir + "/page.png";
  // A profile and home of its own: the plain and ASan test runs start browsers side by side.
  const std::string command = "HOME=" + dir + " timeout 90 chromium --headless --no-sandbox --disable-gpu " +
                              "--hide-scrollbars --user-data-dir=" + dir + "/profile --window-size=900,700 " +
                              "--screenshot=" + png + " file://" + html + " >" + dir + "/chromium.log 2>&1";
  const int rc = std::system(command.c_str());
  EXPECT_EQ(rc, 0) << command << "\n"
                   << read_file(dir + "/chromium.log")
                   << "\n(chromium is a Debian package: scripts/install-deps.sh installs it)";
  auto counts = colour_counts(read_file(png));
  EXPECT_FALSE(counts.empty()) << "no readable screenshot at " << png;
  return counts;
}

// A checks table with one row of each status, as accept's summary builds it; the failed row
// is also emphasised (strong), as accept emphasises it.
Report checks_page(const std::vector<Severity>& statuses) {
  Report r;
  r.title = "Acceptance";
  Block b;
  b.heading = "Checks";
  b.columns = {"Status", "Id", "Saw"};
  for (Severity s : statuses) {
    b.rows.push_back({severity_name(s), std::string("check.") + severity_name(s), "what it saw"});
    b.strong.push_back(s == Severity::kFail);
    b.status.push_back(s);
  }
  r.blocks.push_back(std::move(b));
  return r;
}

TEST(BrowserStatusTest, EachStatusIsPaintedInItsOwnColour) {
  const auto counts = screenshot(html_text(
      checks_page({Severity::kPass, Severity::kInfo, Severity::kWarn, Severity::kFail, Severity::kNeedsEvidence}),
      Lang::kEn));
  // Each status cell has a 4 px bar of its colour down its left edge, at least one text line
  // (≈ 20 px at the page's 1.45 line height) tall: 4 × 15 pixels of the exact colour at least.
  for (const auto& [severity, rgb] : kScheme) {
    auto it = counts.find(rgb);
    EXPECT_GE(it == counts.end() ? 0 : it->second, 60u) << severity_name(severity);
  }
}

TEST(BrowserStatusTest, AFailedRowIsRedAndNothingGreen) {
  const auto counts = screenshot(html_text(checks_page({Severity::kFail, Severity::kFail}), Lang::kEn));
  EXPECT_GE(counts.count(kScheme.at(Severity::kFail)) ? counts.at(kScheme.at(Severity::kFail)) : 0, 60u);
  // Not one pixel of the pass colour: strong means bold, never green.
  EXPECT_EQ(counts.count(kScheme.at(Severity::kPass)), 0u);
}

}  // namespace
}  // namespace gpuplan::report
