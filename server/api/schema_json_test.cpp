#include "server/api/schema_json.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

using json = nlohmann::json;

TEST(SchemaJson, CheckSchemaRefusesWhatItCannotHonourNamingThePath) {
  struct Case {
    const char* schema;
    const char* why;  // a substring of the reason; "" = accepted
  };
  const Case cases[] = {
      {R"({})", ""},
      {R"({"type":"object","properties":{"a":{"type":"string","description":"x"}},"required":["a"]})",
       ""},
      {R"({"type":["string","null"]})", ""},
      {R"({"$defs":{"P":{"type":"integer"}},"type":"array","items":{"$ref":"#/$defs/P"}})", ""},
      {R"({"type":"string","pattern":"^a"})", "/: unsupported keyword 'pattern'"},
      {R"({"properties":{"x":{"allOf":[]}}})", "/properties/x: unsupported keyword 'allOf'"},
      {R"({"type":"strin"})", "/type: unknown type \"strin\""},
      {R"({"enum":[]})", "/enum: 'enum' must be a non-empty list"},
      {R"({"type":"integer","minimum":3,"maximum":2})", "the numeric range is empty"},
      {R"({"type":"integer","minimum":2.1,"maximum":2.9})", "the numeric range is empty"},
      {R"({"type":"string","minLength":5,"maxLength":2})", "the minimum exceeds the maximum"},
      {R"({"type":"array","items":[{"type":"string"}]})", "tuples are not supported"},
      {R"({"$ref":"#/$defs/Missing"})", "/$ref: '$ref' must name an entry of $defs"},
      {R"({"type":"array","uniqueItems":true})", "'uniqueItems' true is not supported"},
      {R"(false)", "accepts no value"},
      {R"(3)", "a schema must be an object"},
  };
  for (const Case& c : cases) {
    const std::optional<std::string> why = check_schema(json::parse(c.schema));
    if (std::string(c.why).empty()) {
      EXPECT_FALSE(why) << c.schema << ": " << why.value_or("");
    } else {
      ASSERT_TRUE(why) << c.schema;
      EXPECT_NE(why->find(c.why), std::string::npos) << c.schema << ": " << *why;
    }
  }
}

TEST(SchemaJson, ValidateAgainstNamesTheFirstMismatch) {
  struct Case {
    const char* schema;
    const char* value;
    const char* why;  // "" = valid
  };
  const Case cases[] = {
      {R"({"type":"integer"})", "3", ""},
      {R"({"type":"integer"})", "3.0", ""},
      {R"({"type":"integer"})", "3.5", "not of type"},
      {R"({"type":"number","minimum":1})", "0.5", "below the minimum"},
      {R"({"type":"number","exclusiveMaximum":1})", "1", "not below exclusiveMaximum"},
      {R"({"type":"string","maxLength":2})", "\"abc\"", "longer than maxLength"},
      {R"({"type":"string","minLength":2})", "\"\u00e9\u00e9\"", ""},
      {R"({"enum":["a","b"]})", "\"c\"", "not in the enum"},
      {R"({"type":"object","required":["a"]})", "{}", "missing required property \"a\""},
      {R"({"type":"object","properties":{"a":{"type":"boolean"}}})", R"({"a":1})",
       "/a: not of type"},
      {R"({"type":"object","additionalProperties":false})", R"({"a":1})", "/a: schema false"},
      {R"({"type":"array","items":{"type":"string"},"maxItems":1})", R"(["a","b"])",
       "more than maxItems"},
      {R"({"type":"array","items":{"type":"string"}})", R"(["a",2])", "/1: not of type"},
      {R"({"anyOf":[{"type":"string"},{"type":"null"}]})", "null", ""},
      {R"({"oneOf":[{"type":"number"},{"type":"integer"}]})", "2", "exactly one"},
  };
  for (const Case& c : cases) {
    const std::optional<std::string> why =
        validate_against(json::parse(c.schema), json::parse(c.value));
    if (std::string(c.why).empty()) {
      EXPECT_FALSE(why) << c.schema << " " << c.value << ": " << why.value_or("");
    } else {
      ASSERT_TRUE(why) << c.schema << " " << c.value;
      EXPECT_NE(why->find(c.why), std::string::npos) << c.schema << ": " << *why;
    }
  }
}

TEST(SchemaJson, GeneratedValuesConformToTypicalToolSchemas) {
  const char* schemas[] = {
      R"({"type":"object","properties":{"location":{"type":"string","description":"City"},
          "unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location","unit"]})",
      R"({"type":"object","properties":{"query":{"type":"string","minLength":3,"maxLength":8},
          "limit":{"type":"integer","minimum":1,"maximum":5},"score":{"type":"number",
          "exclusiveMinimum":0,"exclusiveMaximum":1},"tags":{"type":"array","items":{"type":"string"},
          "minItems":1,"maxItems":2},"filters":{"type":"object","properties":{"open":{"type":
          "boolean"},"since":{"type":"string","format":"date"}},"required":["open"],
          "additionalProperties":false}},"required":["query","limit","score","tags","filters"]})",
      R"({"$defs":{"Item":{"type":"object","properties":{"name":{"type":"string"},"qty":
          {"type":"integer","minimum":0}},"required":["name","qty"]}},"type":"object",
          "properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Item"},"minItems":1}},
          "required":["items"]})",
      R"({"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},
          "n":{"type":["integer","null"]},"c":{"const":"fixed"}},"required":["v","n","c"]})",
      // Branches and references together with the constraints beside them.
      R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],
          "anyOf":[{"properties":{"b":{"type":"integer"}},"required":["b"]},
                   {"properties":{"c":{"type":"boolean"}},"required":["c"]}]})",
      R"({"$defs":{"S":{"type":"string"}},"$ref":"#/$defs/S","maxLength":3})",
  };
  for (const char* text : schemas) {
    const json schema = json::parse(text);
    ASSERT_FALSE(check_schema(schema)) << text;
    for (uint64_t seed = 0; seed < 50; ++seed) {
      Rng rng(seed);
      const json value = generate_conforming(schema, rng);
      const json reparsed = json::parse(value.dump());
      EXPECT_FALSE(validate_against(schema, reparsed))
          << text << "\n"
          << value.dump() << ": " << *validate_against(schema, reparsed);
    }
  }
}

TEST(SchemaJson, AnswersStayBoundedWhateverTheMinimumsAsk) {
  // 4096^3 required strings: cut off after kMaxGeneratedValues values.
  const json schema =
      json::parse(R"({"type":"array","minItems":4096,"items":{"type":"array","minItems":4096,)"
                  R"("items":{"type":"array","minItems":4096,"items":{"type":"string"}}}})");
  ASSERT_FALSE(check_schema(schema));
  Rng rng(1);
  const json value = generate_conforming(schema, rng);
  EXPECT_LT(value.dump().size(), size_t{20} * kMaxGeneratedValues);
  EXPECT_TRUE(validate_against(schema, value));  // cut off: it cannot validate
}

TEST(SchemaJson, GenerationIsDeterministicForASeed) {
  const json schema = json::parse(
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}}})");
  Rng a(7), b(7), c(8);
  const json first = generate_conforming(schema, a);
  EXPECT_EQ(first, generate_conforming(schema, b));
  bool differs = false;
  for (int i = 0; i < 8 && !differs; ++i) differs = generate_conforming(schema, c) != first;
  EXPECT_TRUE(differs);
}

// Random schemas of the supported types, nested up to `depth`.
rc::Gen<json> schema_gen(int depth) {
  return rc::gen::exec([depth] {
    const int kind = *rc::gen::inRange(0, depth > 0 ? 10 : 6);
    json s;
    switch (kind) {
      case 0: {
        s = {{"type", "string"}};
        const int lo = *rc::gen::inRange(0, 12);
        if (*rc::gen::arbitrary<bool>()) s["minLength"] = lo;
        if (*rc::gen::arbitrary<bool>()) s["maxLength"] = lo + *rc::gen::inRange(0, 12);
        break;
      }
      case 1:
      case 2: {
        s = {{"type", kind == 1 ? "integer" : "number"}};
        const int lo = *rc::gen::inRange(-1000, 1000);
        const bool exclusive = kind == 2 && *rc::gen::arbitrary<bool>();
        if (*rc::gen::arbitrary<bool>()) s[exclusive ? "exclusiveMinimum" : "minimum"] = lo;
        if (*rc::gen::arbitrary<bool>()) {
          s[exclusive ? "exclusiveMaximum" : "maximum"] =
              lo + *rc::gen::inRange(exclusive ? 1 : 0, 50);
        }
        break;
      }
      case 3:
        s = {{"type", "boolean"}};
        break;
      case 4:
        s = {{"type", *rc::gen::element<std::string>("null", "string")}};
        break;
      case 5: {
        json values = json::array();
        const int n = *rc::gen::inRange(1, 4);
        for (int i = 0; i < n; ++i) {
          if (*rc::gen::arbitrary<bool>()) {
            values.push_back("v" + std::to_string(i));
          } else {
            values.push_back(i * 3);
          }
        }
        s = {{"enum", values}};
        break;
      }
      case 6:
      case 7: {
        s = {{"type", "array"}, {"items", *schema_gen(depth - 1)}};
        const int lo = *rc::gen::inRange(0, 3);
        if (*rc::gen::arbitrary<bool>()) s["minItems"] = lo;
        if (*rc::gen::arbitrary<bool>()) s["maxItems"] = lo + *rc::gen::inRange(0, 3);
        break;
      }
      case 8: {
        s = {{"type", "object"}, {"properties", json::object()}};
        json required = json::array();
        const int n = *rc::gen::inRange(0, 5);
        for (int i = 0; i < n; ++i) {
          const std::string name = "p" + std::to_string(i);
          s["properties"][name] = *schema_gen(depth - 1);
          if (*rc::gen::arbitrary<bool>()) required.push_back(name);
        }
        s["required"] = required;
        if (*rc::gen::arbitrary<bool>()) s["additionalProperties"] = false;
        break;
      }
      default:
        s = {{"anyOf", json::array({*schema_gen(depth - 1), *schema_gen(depth - 1)})}};
        break;
    }
    return s;
  });
}

RC_GTEST_PROP(SchemaJson, GeneratedValuesParseAndValidateForRandomSchemas, ()) {
  const json schema = *schema_gen(3);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  RC_ASSERT(!check_schema(schema));
  Rng rng(seed);
  const json value = generate_conforming(schema, rng);
  const json reparsed = json::parse(value.dump());
  const std::optional<std::string> why = validate_against(schema, reparsed);
  RC_ASSERT_FALSE(why.has_value());
}

}  // namespace
}  // namespace llm
