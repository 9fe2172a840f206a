// Range: a low..high interval of money or any other quantity. The catalog gives most
// prices as ranges; arithmetic keeps both ends so a total is a range too.
#pragma once

namespace gpuplan {

struct Range {
  double low = 0;
  double high = 0;

  static Range point(double v) { return {v, v}; }
  bool contains(double v) const { return v >= low && v <= high; }
  bool overlaps(const Range& o) const { return low <= o.high && o.low <= high; }
  double mid() const { return (low + high) / 2; }

  Range& operator+=(const Range& o) {
    low += o.low;
    high += o.high;
    return *this;
  }
  friend Range operator+(Range a, const Range& b) { return a += b; }
  friend Range operator-(const Range& a, const Range& b) { return {a.low - b.low, a.high - b.high}; }
  friend Range operator*(const Range& a, double k) { return {a.low * k, a.high * k}; }
  friend Range operator*(double k, const Range& a) { return a * k; }
  friend Range operator/(const Range& a, double k) { return {a.low / k, a.high / k}; }
  // Both ends of a price range scaled by both ends of a factor range (all non-negative).
  friend Range operator*(const Range& a, const Range& f) { return {a.low * f.low, a.high * f.high}; }
  friend bool operator==(const Range&, const Range&) = default;
};

}  // namespace gpuplan
