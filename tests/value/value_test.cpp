#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>

#include "value/object_literal.hpp"
#include "value/value.hpp"

using sindri::Array;
using sindri::KeyProbe;
using sindri::make_object;
using sindri::Member;
using sindri::Object;
using sindri::Value;

TEST(Value, ScalarsKeepTheirKind) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_TRUE(Value(true).get_bool());
  EXPECT_EQ(Value(42).get_int(), 42);
  EXPECT_TRUE(Value(42).is_int());
  EXPECT_TRUE(Value(2.5).is_float());
  EXPECT_EQ(Value(2.5).as_double(), 2.5);
  EXPECT_EQ(Value(7).as_double(), 7.0);
}

TEST(Value, ShortAndLongStrings) {
  Value short_s("fourteen bytes");
  Value long_s("this string is longer than fourteen bytes");
  EXPECT_EQ(short_s.get_string(), "fourteen bytes");
  EXPECT_EQ(long_s.get_string(), "this string is longer than fourteen bytes");
  Value copy = long_s;
  EXPECT_EQ(copy.get_string().data(), long_s.get_string().data()) << "copies share the heap block";
  Value empty("");
  EXPECT_TRUE(empty.is_string());
  EXPECT_EQ(empty.get_string(), "");
  // A default string_view has a null data(): UBSan checks that it is never copied from.
  const Value from_null_view{std::string_view()};
  EXPECT_EQ(from_null_view, empty);
}

TEST(Value, ObjectsAreSortedAndLastDuplicateWins) {
  Object members;
  members.push_back(Member{Value("b"), Value(2)});
  members.push_back(Member{Value("a"), Value(1)});
  members.push_back(Member{Value("b"), Value(3)});
  Value o(std::move(members));
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o.get_object()[0].key.get_string(), "a");
  EXPECT_EQ(o.find("b")->get_int(), 3);
  EXPECT_EQ(o.find("zz"), nullptr);
  EXPECT_EQ(Value(1).find("a"), nullptr);
}

// Small objects are sorted in place, large ones by stable_sort: both keep
// the last of equal keys, whatever the order they come in.
TEST(Value, ObjectsOfEverySizeKeepTheLastOfEqualKeys) {
  for (size_t size : {0, 1, 2, 15, 16, 17, 40}) {
    for (unsigned seed = 0; seed < 5; ++seed) {
      Object members;
      std::map<std::string, long> expected;
      for (size_t i = 0; i < size; ++i) {
        const std::string key = "k" + std::to_string((i * 7 + seed * 13) % (size / 2 + 1));
        members.push_back(Member{Value(key), Value(static_cast<long>(i))});
        expected[key] = static_cast<long>(i);
      }
      const Value object(std::move(members));
      ASSERT_EQ(object.size(), expected.size()) << size << " " << seed;
      size_t at = 0;
      for (const auto& [key, value] : expected) {
        EXPECT_EQ(object.get_object()[at].key.get_string(), key);
        EXPECT_EQ(object.get_object()[at].value.get_int(), value) << key;
        ++at;
      }
    }
  }
}

TEST(Value, CopyOnWriteLeavesOtherCopiesAlone) {
  Value a(Object{});
  a.set("x", Value(1));
  Value b = a;
  b.set("y", Value(2));
  b.set("x", Value(5));
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.find("x")->get_int(), 1);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.find("x")->get_int(), 5);
  EXPECT_TRUE(b.erase("y"));
  EXPECT_FALSE(b.erase("y"));

  Value arr(Array{Value(1)});
  Value arr2 = arr;
  arr2.push_back(Value(2));
  EXPECT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr2.size(), 2u);
  EXPECT_EQ(arr2.at(1)->get_int(), 2);
  EXPECT_EQ(arr2.at(2), nullptr);
}

TEST(Value, EqualityIsStructuralAndTyped) {
  EXPECT_EQ(Value(1), Value(1));
  EXPECT_FALSE(Value(1) == Value(1.0)) << "an int and a float differ, as in serde_json";
  EXPECT_EQ(Value(Array{Value("a"), Value()}), Value(Array{Value("a"), Value()}));
  Object a, b;
  a.push_back(Member{Value("k"), Value(true)});
  b.push_back(Member{Value("k"), Value(false)});
  EXPECT_FALSE(Value(std::move(a)) == Value(std::move(b)));
}

TEST(Value, SharedValuesCanBeCopiedFromManyThreads) {
  Value shared(Array{Value("a string long enough to live on the heap"), Value(Object{})});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        Value copy = shared;
        ASSERT_EQ(copy.size(), 2u);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(shared.size(), 2u);
}

TEST(Value, KeyProbeFindsWhatFindByTextFinds) {
  // Keys around the inline limit (14 bytes), the empty key, keys that share
  // a prefix, and objects on both sides of the 16-member linear search.
  const std::vector<std::string> keys = {"", "a", "ab", "abc", "name", "13-bytes-long", "fourteen-bytes",
                                         "fifteen-bytes-x", "a-much-longer-key-than-inline"};
  for (size_t extra : {0, 20}) {
    Object members;
    for (size_t i = 0; i < keys.size(); ++i) members.push_back(Member{Value(keys[i]), Value(static_cast<long>(i))});
    for (size_t i = 0; i < extra; ++i) members.push_back(Member{Value("filler-" + std::to_string(i)), Value(true)});
    const Value object(std::move(members));
    for (const std::string& key : keys) {
      const KeyProbe probe(key);
      ASSERT_NE(object.find(probe), nullptr) << key;
      EXPECT_EQ(object.find(probe), object.find(key)) << key;
    }
    // "a" followed by a NUL differs from "a" only in its length byte.
    const std::vector<std::string> missing = {"b", "nam", "names", "fourteen-bytez", "fifteen-bytes-y",
                                              std::string("a\0", 2)};
    for (const std::string& key : missing) EXPECT_EQ(object.find(KeyProbe(key)), nullptr) << key;
    EXPECT_EQ(Value(std::string_view("name")).find(KeyProbe("name")), nullptr);
    EXPECT_EQ(Value(Array{Value("name")}).find(KeyProbe("name")), nullptr);
  }
}

TEST(Value, AnObjectLiteralIsSortedByKeyAndItsLastDuplicateWins) {
  const Value object = make_object({{"b", Value(1)}, {"a", Value("x")}, {"b", Value(2)}});
  ASSERT_EQ(object.get_object().size(), 2u);
  EXPECT_EQ(object.get_object()[0].key.get_string(), "a");
  EXPECT_EQ(object.get_object()[0].value.get_string(), "x");
  EXPECT_EQ(object.get_object()[1].key.get_string(), "b");
  EXPECT_EQ(object.get_object()[1].value.get_int(), 2);
  EXPECT_TRUE(make_object({}).is_object());
}
