// The JSON writer's layout and escapes, as Slurm 22.05's json-c serializer prints them.
#include "ctl/output/json_value.h"

#include "common/slurm/json_quote.h"
#include "gtest/gtest.h"

namespace canopy::ctl::output {
namespace {

TEST(JsonValueTest, WriterLayoutAndEscapes) {
  JsonValue doc = JsonValue::Object();
  doc.Set("a", JsonValue::Array())
      .Set("b", JsonValue::Object())
      .Set("c", JsonValue::Array().Push(JsonValue::Int(-1)).Push(JsonValue::Bool(true)))
      .Set("d", JsonValue::Null());
  EXPECT_EQ(doc.Pretty(),
            "{\n"
            "  \"a\": [\n"
            "  ],\n"
            "  \"b\": {\n"
            "  },\n"
            "  \"c\": [\n"
            "    -1,\n"
            "    true\n"
            "  ],\n"
            "  \"d\": null\n"
            "}");
  EXPECT_EQ(slurm::JsonQuote("a/b\"c\\d\n\t\x01\xc3\xa9"),
            "\"a\\/b\\\"c\\\\d\\n\\t\\u0001\xc3\xa9\"");
}

}  // namespace
}  // namespace canopy::ctl::output
