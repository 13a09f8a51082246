// einsum in the ATen table (TorchScript keeps it; torch.export decomposes it before saving):
// equations of one or two operands in which a letter appears at most once per operand, without
// an ellipsis, with or without "->" (without: the letters seen once, in alphabetical order). One
// operand is a permute, after sums over the letters the output drops. Two operands: each letter
// is a batch letter (in both operands and the output), a contracted one (both operands, not the
// output) or an operand's own (summed first when the output drops it); each operand is permuted
// to [batch, own, contracted] / [batch, contracted, own] and viewed as 3-D, one batched matmul
// multiplies them, and the product is viewed and permuted into the output's order. (MaxViT's
// relative attention: "B G H I D, B G H J D -> B G H I J".)
#include <algorithm>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

// An operand: its value and the letter of each of its dims.
struct Term {
  ValueId value;
  std::string letters;
};

bool has(const std::string& letters, char c) { return letters.find(c) != std::string::npos; }

// The product of the sizes of `letters` in `term`.
int64_t extent(const Ctx& c, const Term& term, const std::string& letters) {
  int64_t n = 1;
  for (char l : letters) n *= c.type(term.value).shape[term.letters.find(l)];
  return n;
}

// `term` summed over its letters that `keep` lacks.
Expected<Term> sum_dropped(const Ctx& c, Term term, const std::string& keep,
                           const std::string& suffix) {
  ir::IntList dims;
  std::string kept;
  for (size_t d = 0; d < term.letters.size(); ++d) {
    if (has(keep, term.letters[d])) {
      kept += term.letters[d];
    } else {
      dims.push_back(static_cast<int64_t>(d));
    }
  }
  if (dims.empty()) return term;
  INFERNO_ASSIGN_OR_RETURN(term.value,
                           c.build(OpKind::kSum, {term.value},
                                   attrs({{"dims", std::move(dims)}, {"keepdim", false}}), suffix));
  term.letters = kept;
  return term;
}

// `term` with its dims in the order of `letters` (a permutation of its own).
Expected<Term> ordered(const Ctx& c, Term term, const std::string& letters,
                       const std::string& suffix) {
  if (term.letters == letters) return term;
  ir::IntList dims;
  for (char l : letters) dims.push_back(static_cast<int64_t>(term.letters.find(l)));
  INFERNO_ASSIGN_OR_RETURN(term.value, c.build(OpKind::kPermute, {term.value},
                                               attrs({{"dims", std::move(dims)}}), suffix));
  term.letters = letters;
  return term;
}

Expected<ValueId> viewed(const Ctx& c, ValueId x, ir::Shape shape, const std::string& suffix) {
  if (c.type(x).shape == shape) return x;
  return c.build(OpKind::kReshape, {x}, attrs({{"shape", std::move(shape)}}), suffix);
}

Outputs einsum(Ctx& c) {
  std::string equation;
  for (char ch : c.a.get_string("equation")) {
    if (ch != ' ') equation += ch;
  }
  const std::vector<ValueId> tensors = c.a.tensors("tensors");
  const size_t arrow = equation.find("->");
  const std::string inputs = equation.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0; begin <= inputs.size();) {
    const size_t comma = std::min(inputs.find(',', begin), inputs.size());
    terms.push_back({ir::kNoValue, inputs.substr(begin, comma - begin)});
    begin = comma + 1;
  }
  if (equation.find('.') != std::string::npos)
    return c.unsupported_arg("an ellipsis ('...') in the equation '" + equation + "'");
  if (terms.size() != tensors.size()) {
    return c.invalid("the equation '" + equation + "' has " + std::to_string(terms.size()) +
                     " operands, the call " + std::to_string(tensors.size()));
  }
  if (terms.size() > 2) return c.unsupported_arg("more than two operands ('" + equation + "')");
  std::string seen_once, all;
  for (size_t i = 0; i < terms.size(); ++i) {
    terms[i].value = tensors[i];
    const std::string& letters = terms[i].letters;
    for (size_t k = 0; k < letters.size(); ++k) {
      const char l = letters[k];
      if (!std::isalpha(static_cast<unsigned char>(l)))
        return c.invalid("'" + std::string(1, l) + "' in the equation '" + equation + "'");
      if (letters.find(l, k + 1) != std::string::npos)
        return c.unsupported_arg("a letter repeated in one operand ('" + equation + "')");
    }
    if (static_cast<int64_t>(letters.size()) != c.type(tensors[i]).rank()) {
      return c.invalid("operand " + std::to_string(i) + " has " + std::to_string(letters.size()) +
                       " letters in '" + equation + "' but is " + c.type(tensors[i]).to_string());
    }
    all += letters;
  }
  std::string output;
  if (arrow == std::string::npos) {
    std::string sorted = all;
    std::sort(sorted.begin(), sorted.end());
    for (char l : sorted) {
      if (std::count(all.begin(), all.end(), l) == 1) output += l;
    }
  } else {
    output = equation.substr(arrow + 2);
  }
  for (size_t k = 0; k < output.size(); ++k) {
    if (!has(all, output[k]) || output.find(output[k], k + 1) != std::string::npos) {
      return c.invalid("output letter '" + std::string(1, output[k]) + "' of '" + equation +
                       "' is not one of the operands' or repeats");
    }
  }
  if (terms.size() == 2) {  // a letter of both operands has one size
    for (size_t d = 0; d < terms[0].letters.size(); ++d) {
      const size_t e = terms[1].letters.find(terms[0].letters[d]);
      if (e != std::string::npos &&
          c.type(terms[0].value).shape[d] != c.type(terms[1].value).shape[e]) {
        return c.invalid("letter '" + std::string(1, terms[0].letters[d]) + "' has two sizes in '" +
                         equation + "'");
      }
    }
  }
  if (terms.size() == 1) {
    INFERNO_ASSIGN_OR_RETURN(Term t, sum_dropped(c, terms[0], output, "summed"));
    INFERNO_ASSIGN_OR_RETURN(t, ordered(c, t, output, ""));
    return std::vector<ValueId>{t.value};
  }
  // Letters of the other operand or the output stay; the rest are summed away first.
  INFERNO_ASSIGN_OR_RETURN(Term a, sum_dropped(c, terms[0], terms[1].letters + output, "a_sum"));
  INFERNO_ASSIGN_OR_RETURN(Term b, sum_dropped(c, terms[1], a.letters + output, "b_sum"));
  std::string batch, contracted, own_a, own_b;
  for (char l : a.letters) {
    if (has(b.letters, l)) {
      (has(output, l) ? batch : contracted) += l;
    } else {
      own_a += l;
    }
  }
  for (char l : b.letters) {
    if (!has(a.letters, l)) own_b += l;
  }
  const int64_t batches = extent(c, a, batch), m = extent(c, a, own_a),
                k = extent(c, a, contracted), n = extent(c, b, own_b);
  INFERNO_ASSIGN_OR_RETURN(a, ordered(c, a, batch + own_a + contracted, "a_order"));
  INFERNO_ASSIGN_OR_RETURN(b, ordered(c, b, batch + contracted + own_b, "b_order"));
  INFERNO_ASSIGN_OR_RETURN(const ValueId a3, viewed(c, a.value, {batches, m, k}, "a3"));
  INFERNO_ASSIGN_OR_RETURN(const ValueId b3, viewed(c, b.value, {batches, k, n}, "b3"));
  INFERNO_ASSIGN_OR_RETURN(const ValueId product, c.build(OpKind::kMatMul, {a3, b3}, {}, "mm"));
  Term result{product, batch + own_a + own_b};
  ir::Shape shape;
  for (char l : result.letters) {
    const Term& from = has(a.letters, l) ? a : b;
    shape.push_back(c.type(from.value).shape[from.letters.find(l)]);
  }
  INFERNO_ASSIGN_OR_RETURN(result.value, viewed(c, product, std::move(shape), "product"));
  INFERNO_ASSIGN_OR_RETURN(result, ordered(c, result, output, ""));
  return std::vector<ValueId>{result.value};
}

}  // namespace

void add_einsum_entries(std::vector<OpEntry>& table) {
  table.push_back({"aten::einsum",
                   "",
                   {arg("equation", ArgKind::kString), arg("tensors", ArgKind::kTensorList),
                    opt("path", ArgKind::kAny)},
                   einsum});
}

}  // namespace inferno::frontend::aten
