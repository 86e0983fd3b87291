// Reading CUDA kernel signatures: the source is blanked down to code (no comments, literals or
// preprocessor lines), cut into tokens, and scanned for `__global__ void NAME(...) {`. No attempt
// is made to parse C++ in general; a kernel's declaration is regular enough that a token scan
// finds it, and anything else is stepped over.
#include "kernel_signature.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <utility>

namespace dualrt::detail {
namespace {

using Kind = backend::ParamInfo::Kind;
using Tokens = std::vector<std::string>;
using Words = std::initializer_list<const char*>;

// Words that qualify a type without changing its size or kind.
const Words qualifiers = {"const", "volatile", "restrict", "__restrict", "__restrict__",
                          "__grid_constant__"};
// Words that introduce a type's name: the word after them is the type, not a parameter name.
const Words elaborations = {"struct", "class", "union", "enum", "typename"};
// Keywords that spell built-in types; an integer type may use several, in any order.
const Words integer_keywords = {"signed", "unsigned", "char", "short", "int", "long"};
const Words type_keywords = {"void", "bool", "float", "double", "signed", "unsigned",
                             "char", "short", "int", "long"};
// What may stand before `void` or before a kernel's name and means nothing to its parameters.
const Words plain_specifiers = {"static", "inline", "extern", "__inline__", "__forceinline__",
                                "__noinline__"};
const Words specifiers_with_arguments = {"__launch_bounds__", "__maxnreg__", "__cluster_dims__",
                                         "__attribute__", "__declspec"};

bool is_one_of(const Words& words, const std::string& token) {
    return std::any_of(words.begin(), words.end(), [&](const char* w) { return token == w; });
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_word(const std::string& token) { return !token.empty() && is_word_char(token[0]); }
bool is_identifier(const std::string& token) { return is_word(token) && !is_digit(token[0]); }

// --- Blanking everything that is not code ---------------------------------------------------

// One past the end of the string or character literal whose opening quote is at `quote`. An
// unterminated literal ends at its line's end, as the compiler would report it.
std::size_t end_of_literal(const std::string& s, std::size_t quote) {
    std::size_t i = quote + 1;
    while (i < s.size() && s[i] != s[quote] && s[i] != '\n') i += s[i] == '\\' ? 2u : 1u;
    if (i >= s.size()) return s.size();
    return s[i] == '\n' ? i : i + 1;
}

// R"delim(...)delim" may hold quotes and backslashes freely, so it needs its own end search.
// Returns one past its end, or 0 when the quote at `quote` does not open a raw string.
std::size_t end_of_raw_string(const std::string& s, std::size_t quote) {
    std::size_t start = quote;
    while (start > 0 && is_word_char(s[start - 1])) --start;
    if (!is_one_of({"R", "LR", "uR", "UR", "u8R"}, s.substr(start, quote - start))) return 0;
    const std::size_t open = s.find('(', quote);
    if (open == std::string::npos || open - quote > 17) return 0;  // delimiters: 16 chars at most
    const std::string close = ")" + s.substr(quote + 1, open - quote - 1) + "\"";
    const std::size_t end = s.find(close, open);
    return end == std::string::npos ? s.size() : end + close.size();
}

// In 1'000'000 or 0xFF'FF the quote separates digits and opens no character literal: the word it
// ends (separators included) starts with a digit.
bool is_digit_separator(const std::string& s, std::size_t quote) {
    std::size_t start = quote;
    while (start > 0 && (is_word_char(s[start - 1]) || s[start - 1] == '\'')) --start;
    return start < quote && is_digit(s[start]);
}

// Whether the newline at `newline` is escaped by a backslash, continuing a preprocessor line.
bool is_continued(const std::string& s, std::size_t newline) {
    std::size_t i = newline;
    if (i > 0 && s[i - 1] == '\r') --i;
    return i > 0 && s[i - 1] == '\\';
}

// The source with comments, string and character literals and preprocessor lines turned into
// spaces, so that nothing inside them can look like a kernel.
std::string code_only(const std::string& s) {
    std::string out(s.size(), ' ');
    bool line_start = true;  // only whitespace and comments since the last newline
    bool directive = false;  // inside a preprocessor line
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        const char next = i + 1 < s.size() ? s[i + 1] : '\0';
        if (c == '\n') {
            directive = directive && is_continued(s, i);
            line_start = true;
            out[i++] = '\n';
        } else if (c == '/' && next == '/') {
            i = std::min(s.find('\n', i), s.size());
        } else if (c == '/' && next == '*') {
            const std::size_t end = s.find("*/", i + 2);
            i = end == std::string::npos ? s.size() : end + 2;
        } else if (c == '"' || (c == '\'' && !is_digit_separator(s, i))) {
            const std::size_t raw_end = c == '"' ? end_of_raw_string(s, i) : 0;
            i = raw_end != 0 ? raw_end : end_of_literal(s, i);
            line_start = false;
        } else {
            if (c == '#' && line_start) directive = true;
            if (!is_space(c)) line_start = false;
            if (!directive) out[i] = c;
            ++i;
        }
    }
    return out;
}

// --- Tokens -----------------------------------------------------------------------------------

// Words (identifiers, keywords, numbers), `::`, and single punctuation characters.
Tokens tokenize(const std::string& code) {
    Tokens tokens;
    std::size_t i = 0;
    while (i < code.size()) {
        if (is_space(code[i])) {
            ++i;
            continue;
        }
        std::size_t end = i + 1;
        if (is_word_char(code[i])) {
            while (end < code.size() && is_word_char(code[end])) ++end;
        } else if (code.compare(i, 2, "::") == 0) {
            end = i + 2;
        }
        tokens.push_back(code.substr(i, end - i));
        i = end;
    }
    return tokens;
}

// The token at i, or "" past the end, so that looking ahead needs no bounds checks.
const std::string& at(const Tokens& t, std::size_t i) {
    static const std::string none;
    return i < t.size() ? t[i] : none;
}

// The index of the bracket closing the one at `open` ("(", "[", "{" or "<"), or t.size() when the
// source ends first.
std::size_t matching(const Tokens& t, std::size_t open) {
    const std::string& opener = at(t, open);
    const char* closer = opener == "(" ? ")" : opener == "[" ? "]" : opener == "{" ? "}" : ">";
    int depth = 0;
    for (std::size_t i = open; i < t.size(); ++i) {
        if (t[i] == opener) ++depth;
        else if (t[i] == closer && --depth == 0) return i;
    }
    return t.size();
}

// One past the bracket closing the one at `open`, or t.size().
std::size_t after(const Tokens& t, std::size_t open) {
    return std::min(matching(t, open) + 1, t.size());
}

// Past the specifiers and attributes that may stand before `void` or before a kernel's name:
// `static`, `__launch_bounds__(256, 2)`, `[[nodiscard]]`, ...
std::size_t skip_specifiers(const Tokens& t, std::size_t i) {
    while (true) {
        if (is_one_of(plain_specifiers, at(t, i))) {
            ++i;
        } else if (is_one_of(specifiers_with_arguments, at(t, i)) && at(t, i + 1) == "(") {
            i = after(t, i + 1);
        } else if (at(t, i) == "[" && at(t, i + 1) == "[") {
            i = after(t, i);
        } else {
            return i;
        }
    }
}

// Past the declaration starting at i: its `;`, or the `}` that closes its body.
std::size_t skip_declaration(const Tokens& t, std::size_t i) {
    int parens = 0;  // a default argument `T x = T{}` has braces that end nothing
    for (; i < t.size(); ++i) {
        if (t[i] == "(") ++parens;
        else if (t[i] == ")" && parens > 0) --parens;
        else if (parens == 0 && t[i] == ";") return i + 1;
        else if (parens == 0 && t[i] == "{") return after(t, i);
    }
    return t.size();
}

// --- Parameters -------------------------------------------------------------------------------

// The tokens of each parameter in [begin, end), split at the commas outside brackets (the one in
// `Pair<int, float>` separates nothing). `()` and `(void)` declare none.
std::vector<Tokens> split_params(const Tokens& t, std::size_t begin, std::size_t end) {
    std::vector<Tokens> params;
    if (begin == end || (end == begin + 1 && t[begin] == "void")) return params;
    params.emplace_back();
    int depth = 0;
    for (std::size_t i = begin; i < end; ++i) {
        if (is_one_of({"(", "[", "{", "<"}, t[i])) {
            ++depth;
        } else if (is_one_of({")", "]", "}", ">"}, t[i])) {
            depth = std::max(depth - 1, 0);
        } else if (depth == 0 && t[i] == ",") {
            params.emplace_back();
            continue;
        }
        params.back().push_back(t[i]);
    }
    return params;
}

// Whether the last token names the parameter rather than ending its type: an identifier that is
// no keyword, not the end of a qualified name, and has a type before it. Without a symbol table
// `const Params` is ambiguous; a parameter must have a type, so Params is read as the type.
bool ends_with_name(const Tokens& p) {
    if (p.size() < 2 || !is_identifier(p.back())) return false;
    if (is_one_of(type_keywords, p.back()) || is_one_of(qualifiers, p.back()) ||
        p[p.size() - 2] == "::")
        return false;
    return std::any_of(p.begin(), p.end() - 1, [](const std::string& token) {
        return is_word(token) && !is_one_of(qualifiers, token) &&
               !is_one_of(elaborations, token);
    });
}

// Tokens back into text with single spaces where C++ needs them or people write them:
// "const float* __restrict__", "dualrt_local<float>", "std::size_t", "Pair<int, float>".
std::string join_type(const Tokens& tokens) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const bool space = i > 0 && is_word(tokens[i]) &&
                           !is_one_of({"<", "(", "[", "::"}, tokens[i - 1]);
        if (space) out += ' ';
        out += tokens[i];
    }
    return out;
}

// A `*` outside template arguments: `Wrapper<float*> w` is a struct passed by value.
bool is_pointer(const Tokens& type) {
    int depth = 0;
    for (const std::string& token : type) {
        if (token == "<") ++depth;
        else if (token == ">") --depth;
        else if (token == "*" && depth == 0) return true;
    }
    return false;
}

// dualrt_local<T>, possibly qualified (see kernels/cu/dualrt_kernel.cuh).
bool is_local(const Tokens& type) {
    const auto first = std::find_if(type.begin(), type.end(), [](const std::string& token) {
        return !is_one_of(qualifiers, token);
    });
    return first != type.end() && *first == "dualrt_local" && std::next(first) != type.end() &&
           *std::next(first) == "<";
}

backend::ParamInfo parse_param(Tokens type) {
    // A default argument says nothing about the type.
    type.erase(std::find(type.begin(), type.end(), "="), type.end());
    // An array parameter (`float x[]`) is a pointer in C++; its brackets follow the name.
    const auto bracket = std::find(type.begin(), type.end(), "[");
    const Tokens array_suffix(bracket, type.end());
    type.erase(bracket, type.end());

    backend::ParamInfo info;
    if (ends_with_name(type)) {
        info.name = type.back();
        type.pop_back();
    }
    info.type_name = join_type(type) + join_type(array_suffix);
    if (!array_suffix.empty() || is_pointer(type)) {
        info.kind = Kind::buffer;
        info.size = sizeof(void*);
    } else if (is_local(type)) {
        info.kind = Kind::local;
        info.size = sizeof(std::uint32_t);  // dualrt_local's byte offset into shared memory
    } else {
        info.kind = Kind::scalar;
        info.size = cuda_scalar_size(info.type_name);
    }
    return info;
}

// Reads `void NAME(PARAMS) {` from i, the token after a `__global__`, and appends the kernel when
// this is its definition. Returns where the scan goes on (never before i).
std::size_t read_kernel(const Tokens& t, std::size_t i, std::vector<KernelSignature>& kernels) {
    i = skip_specifiers(t, i);
    if (at(t, i) != "void") return i;
    const std::size_t name = skip_specifiers(t, i + 1);
    if (!is_identifier(at(t, name)) || at(t, name + 1) != "(") return name;
    const std::size_t close = matching(t, name + 1);
    if (close == t.size()) return close;  // the source ends inside the parameter list
    const std::size_t body = skip_specifiers(t, close + 1);
    if (at(t, body) != "{") return body;  // a prototype: the definition is elsewhere, if anywhere
    KernelSignature kernel{t[name], {}};
    for (Tokens& param : split_params(t, name + 2, close))
        kernel.params.push_back(parse_param(std::move(param)));
    kernels.push_back(std::move(kernel));
    return body;
}

// --- Sizes ------------------------------------------------------------------------------------

struct SizeEntry {
    const char* name;
    std::size_t size;
};

template <std::size_t N>
std::size_t find_size(const SizeEntry (&table)[N], const std::string& name) {
    const auto entry = std::find_if(std::begin(table), std::end(table),
                                    [&](const SizeEntry& e) { return name == e.name; });
    return entry == std::end(table) ? 0 : entry->size;
}

// Integer types spelt with keywords, in any order ("unsigned long long int", "short"). CUDA
// guarantees device code the host's sizes of long and long long.
std::size_t integer_size(const Tokens& words) {
    const auto count = [&](const char* word) {
        return std::count(words.begin(), words.end(), word);
    };
    if (count("char") > 0) return 1;
    if (count("short") > 0) return 2;
    if (count("long") >= 2) return sizeof(long long);
    if (count("long") == 1) return sizeof(long);
    return sizeof(int);
}

// CUDA's built-in vector types BASE1..BASE4: n components of BASE without padding (float3 is 12
// bytes, where OpenCL's float3 is 16).
std::size_t vector_size(const std::string& name) {
    static const SizeEntry bases[] = {
        {"char", 1},     {"uchar", 1},     {"short", 2},           {"ushort", 2},
        {"int", 4},      {"uint", 4},      {"long", sizeof(long)}, {"ulong", sizeof(long)},
        {"longlong", 8}, {"ulonglong", 8}, {"float", 4},           {"double", 8}};
    if (name.size() < 2 || name.back() < '1' || name.back() > '4') return 0;
    const auto components = static_cast<std::size_t>(name.back() - '0');
    return components * find_size(bases, name.substr(0, name.size() - 1));
}

// Types named by one identifier: the OpenCL spellings of dualrt_kernel.cuh, CUDA's half types,
// <cstdint>/<cstddef> typedefs, dim3, and the vector types.
std::size_t named_size(const std::string& name) {
    static const SizeEntry named[] = {
        {"bool", 1},          {"float", 4},          {"double", 8},
        {"uchar", 1},         {"ushort", 2},         {"uint", 4},
        {"ulong", sizeof(unsigned long)},
        {"half", 2},          {"__half", 2},         {"half2", 4},
        {"__half2", 4},       {"nv_bfloat16", 2},    {"__nv_bfloat16", 2},
        {"nv_bfloat162", 4},  {"__nv_bfloat162", 4},
        {"int8_t", 1},        {"uint8_t", 1},        {"int16_t", 2},
        {"uint16_t", 2},      {"int32_t", 4},        {"uint32_t", 4},
        {"int64_t", 8},       {"uint64_t", 8},
        {"size_t", sizeof(std::size_t)},   {"ptrdiff_t", sizeof(std::ptrdiff_t)},
        {"intptr_t", sizeof(std::intptr_t)}, {"uintptr_t", sizeof(std::uintptr_t)},
        {"dim3", 12}};
    const std::size_t size = find_size(named, name);
    return size != 0 ? size : vector_size(name);
}

}  // namespace

std::vector<KernelSignature> cuda_kernel_signatures(const std::string& source) {
    const Tokens t = tokenize(code_only(source));
    std::vector<KernelSignature> kernels;
    std::size_t i = 0;
    while (i < t.size()) {
        if (t[i] == "template" && at(t, i + 1) == "<") {
            // A template kernel has only mangled instantiations: skip the whole declaration.
            i = skip_declaration(t, after(t, i + 1));
        } else if (t[i] == "__global__") {
            i = read_kernel(t, i + 1, kernels);
        } else {
            ++i;
        }
    }
    return kernels;
}

std::size_t cuda_scalar_size(const std::string& type) {
    const Tokens tokens = tokenize(type);
    Tokens words;  // the type without qualifiers and without a std:: or :: prefix
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const bool std_prefix = tokens[i] == "std" && at(tokens, i + 1) == "::";
        const bool global_prefix = tokens[i] == "::" && words.empty();
        if (is_one_of(qualifiers, tokens[i]) || std_prefix || global_prefix) continue;
        if (!is_word(tokens[i])) return 0;  // a pointer, a template, a nested name: not a scalar
        words.push_back(tokens[i]);
    }
    if (words.empty()) return 0;
    const bool keywords_only = std::all_of(words.begin(), words.end(), [](const std::string& w) {
        return is_one_of(integer_keywords, w);
    });
    if (keywords_only) return integer_size(words);
    return words.size() == 1 ? named_size(words[0]) : 0;
}

}  // namespace dualrt::detail
