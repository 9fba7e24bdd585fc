/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// LDPC codes from alist files: parsing with line context, the decoding layers, and the
// systematic encoder (triangular substitution or Gauss-Jordan over GF(2)).
#include <gpufec/ldpc_alist.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace gpufec {

struct ldpc_alist_code::impl {
    int n = 0, m = 0, k = 0, rank = 0;
    size_t edges = 0;
    std::string source;
    std::vector<std::vector<int>> rows;
    std::vector<int> info;
    std::vector<std::vector<int>> layers;
    bool triangular = false;
    // Parity bit pivot[t] is the sum of the other bits of row order[t] (substitution),
    // or of the info bits selected by dense row t (elimination).
    std::vector<int> order, pivot;
    size_t words = 0;
    std::vector<uint64_t> dense; // rank x words, reduced rows without their pivot bit
};

namespace {

constexpr int max_dimension = 1 << 24;

std::string elimination_limit_text()
{
    const double bits = ldpc_alist_code::max_elimination_bits();
    char buf[96];
    std::snprintf(buf,
                  sizeof buf,
                  "%.3g (about n = %.0f at rate 1/2)",
                  bits,
                  std::floor(std::sqrt(2.0 * bits) / 1000.0) * 1000.0);
    return buf;
}

// Whitespace-separated integers with the line each one starts on.
class token_reader
{
public:
    token_reader(const std::string& text, const std::string& source)
        : d_text(text), d_source(source)
    {
    }

    [[noreturn]] void fail(int line, const std::string& msg) const
    {
        throw error("ldpc alist " + d_source + " line " + std::to_string(line) + ": " +
                    msg);
    }

    //! The next integer; `what` names it when the text ends or holds something else.
    long long next(const std::string& what)
    {
        size_t begin, end;
        if (!token(begin, end))
            fail(d_line, "unexpected end of file, expected " + what);
        const std::string tok = d_text.substr(begin, end - begin);
        errno = 0;
        char* stop = nullptr;
        const long long v = std::strtoll(tok.c_str(), &stop, 10);
        if (stop != tok.c_str() + tok.size() || errno == ERANGE)
            fail(d_line, "expected " + what + ", got \"" + tok + "\"");
        return v;
    }

    //! Consumes zero tokens (the padding of alist lists).
    void skip_zeros()
    {
        for (;;) {
            const size_t pos = d_pos;
            const int line = d_line;
            size_t begin, end;
            if (!token(begin, end))
                return;
            if (end - begin != 1 || d_text[begin] != '0') {
                d_pos = pos;
                d_line = line;
                return;
            }
        }
    }

    int line() const { return d_line; }

    //! Throws when anything but whitespace is left.
    void expect_end()
    {
        size_t begin, end;
        if (token(begin, end))
            fail(d_line,
                 "unexpected data \"" +
                     d_text.substr(begin, std::min<size_t>(end - begin, 20)) +
                     "\" after the row lists");
    }

private:
    // Skips whitespace (counting lines), then delimits one token; false at the end.
    bool token(size_t& begin, size_t& end)
    {
        const size_t len = d_text.size();
        while (d_pos < len && std::isspace(static_cast<unsigned char>(d_text[d_pos]))) {
            if (d_text[d_pos] == '\n')
                d_line++;
            d_pos++;
        }
        if (d_pos == len)
            return false;
        begin = d_pos;
        while (d_pos < len && !std::isspace(static_cast<unsigned char>(d_text[d_pos])))
            d_pos++;
        end = d_pos;
        return true;
    }

    const std::string& d_text;
    const std::string& d_source;
    size_t d_pos = 0;
    int d_line = 1;
};

std::string base_name(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// First fit in row order: row r joins the first layer none of whose rows shares a
// column with it. Empty rows constrain nothing and are left out. Memory O(nnz): each
// column keeps the layers that already use it.
std::vector<std::vector<int>> make_layers(int n,
                                          const std::vector<std::vector<int>>& rows)
{
    std::vector<std::vector<int>> layers;
    std::vector<std::vector<int>> col_layers(n);
    std::vector<int> taken;
    for (int r = 0; r < static_cast<int>(rows.size()); r++) {
        if (rows[r].empty())
            continue;
        taken.clear();
        for (int c : rows[r])
            taken.insert(taken.end(), col_layers[c].begin(), col_layers[c].end());
        std::sort(taken.begin(), taken.end());
        int l = 0;
        for (int t : taken) {
            if (t > l)
                break;
            if (t == l)
                l++;
        }
        if (l == static_cast<int>(layers.size()))
            layers.emplace_back();
        layers[l].push_back(r);
        for (int c : rows[r])
            col_layers[c].push_back(l);
    }
    return layers;
}

// Substitution encoder: order the rows by their largest (smallest) column; when those
// pivots are all distinct, each row's pivot is absent from the rows before it and every
// other column of the row is an info bit or an earlier pivot.
bool plan_triangular(ldpc_alist_code::impl& p, bool by_max)
{
    std::vector<std::pair<int, int>> key; // (pivot, row)
    for (int r = 0; r < p.m; r++) {
        if (p.rows[r].empty())
            return false;
        key.emplace_back(by_max ? p.rows[r].back() : p.rows[r].front(), r);
    }
    std::sort(key.begin(), key.end());
    if (!by_max)
        std::reverse(key.begin(), key.end());
    for (size_t t = 1; t < key.size(); t++)
        if (key[t].first == key[t - 1].first)
            return false;
    p.order.clear();
    p.pivot.clear();
    for (const auto& kr : key) {
        p.pivot.push_back(kr.first);
        p.order.push_back(kr.second);
    }
    p.triangular = true;
    p.rank = p.m;
    return true;
}

// Gauss-Jordan over GF(2) with pivots taken greedily from the last column down
// (from_right) or from the first column up. Returns the reduced pivot rows (rank x W
// words) and sets `pivot`.
std::vector<uint64_t>
eliminate(const ldpc_alist_code::impl& p, bool from_right, std::vector<int>& pivot)
{
    const size_t W = (static_cast<size_t>(p.n) + 63) / 64;
    std::vector<uint64_t> h(static_cast<size_t>(p.m) * W, 0);
    for (int r = 0; r < p.m; r++)
        for (int c : p.rows[r])
            h[r * W + (c >> 6)] |= uint64_t(1) << (c & 63);
    int rank = 0, first_skipped = -1;
    pivot.clear();
    for (int t = 0; t < p.n && rank < p.m; t++) {
        const int c = from_right ? p.n - 1 - t : t;
        const size_t w = c >> 6;
        const uint64_t bit = uint64_t(1) << (c & 63);
        int i = rank;
        while (i < p.m && !(h[i * W + w] & bit))
            i++;
        if (i == p.m) {
            if (first_skipped < 0)
                first_skipped = c;
            continue;
        }
        if (i != rank)
            std::swap_ranges(
                h.begin() + i * W, h.begin() + (i + 1) * W, h.begin() + rank * W);
        // Earlier pivots were cleared from the pivot row, so it is zero beyond c and the
        // first non-pivot column passed: XOR only the words in between.
        const int edge = first_skipped < 0 ? c
                                           : (from_right ? std::max(c, first_skipped)
                                                         : std::min(c, first_skipped));
        const size_t lo = from_right ? 0 : static_cast<size_t>(edge) >> 6;
        const size_t hi = from_right ? static_cast<size_t>(edge) >> 6 : W - 1;
        const uint64_t* __restrict__ src = &h[rank * W];
        for (int r = 0; r < p.m; r++) {
            uint64_t* __restrict__ dst = &h[r * W];
            if (r != rank && (dst[w] & bit))
                for (size_t x = lo; x <= hi; x++)
                    dst[x] ^= src[x];
        }
        pivot.push_back(c);
        rank++;
    }
    h.resize(static_cast<size_t>(rank) * W);
    for (int r = 0; r < rank; r++)
        h[r * W + (pivot[r] >> 6)] &= ~(uint64_t(1) << (pivot[r] & 63));
    return h;
}

// Elimination encoder. The parity bits go at the end when the last rank(H) columns are
// independent (802.11n, NR), else at the start when the first rank(H) columns are
// (gr-fec's ldpc_H_matrix files: codeword = [p1 p2 s]), else at the columns found
// greedily from the right.
void plan_elimination(ldpc_alist_code::impl& p)
{
    const double bits = static_cast<double>(p.m) * p.n;
    if (bits > ldpc_alist_code::max_elimination_bits())
        throw error(
            "ldpc alist " + p.source + ": H is " + std::to_string(p.m) + " x " +
            std::to_string(p.n) +
            " and its parity part is not triangular in the given column order; "
            "Gauss-Jordan encoding is limited to m * n <= " +
            elimination_limit_text() +
            ". Allowed: a smaller code, or columns ordered so that the parity part "
            "is triangular (IRA codes such as DVB-S2 in their standard order are)");
    p.words = (static_cast<size_t>(p.n) + 63) / 64;
    p.dense = eliminate(p, true, p.pivot);
    p.rank = static_cast<int>(p.pivot.size());
    p.triangular = false;
    const bool parity_last = p.rank == 0 || p.pivot.back() == p.n - p.rank;
    if (!parity_last) {
        std::vector<int> left;
        std::vector<uint64_t> dense = eliminate(p, false, left);
        if (left.back() == p.rank - 1) {
            p.dense = std::move(dense);
            p.pivot = std::move(left);
        }
    }
}

std::shared_ptr<ldpc_alist_code::impl>
build(int n, std::vector<std::vector<int>> rows, const std::string& source)
{
    auto p = std::make_shared<ldpc_alist_code::impl>();
    p->n = n;
    p->m = static_cast<int>(rows.size());
    p->source = source;
    p->rows = std::move(rows);
    for (const auto& r : p->rows)
        p->edges += r.size();
    if (!plan_triangular(*p, true) && !plan_triangular(*p, false))
        plan_elimination(*p);
    p->k = n - p->rank;
    if (p->k <= 0)
        throw error("ldpc alist " + source + ": H has full column rank (rank " +
                    std::to_string(p->rank) +
                    " = n), so the code has no information "
                    "bits; allowed: rank(H) < n");
    std::vector<uint8_t> is_pivot(n, 0);
    for (int c : p->pivot)
        is_pivot[c] = 1;
    for (int c = 0; c < n; c++)
        if (!is_pivot[c])
            p->info.push_back(c);
    p->layers = make_layers(n, p->rows);
    return p;
}

// Parses alist text into n and the rows of H; errors name `source` and the line.
int parse_alist(const std::string& text,
                const std::string& source,
                std::vector<std::vector<int>>& rows_out)
{
    token_reader in(text, source);
    const int hline = in.line();
    const long long n = in.next("the number of columns n");
    const long long m = in.next("the number of rows m");
    if (n < 1 || n > max_dimension || m < 1 || m > max_dimension)
        in.fail(hline,
                "n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                    "; allowed: 1.." + std::to_string(max_dimension) + " each");
    const long long max_col = in.next("the largest column weight");
    const long long max_row = in.next("the largest row weight");
    if (max_col < 0 || max_col > m || max_row < 0 || max_row > n)
        in.fail(in.line(),
                "largest weights " + std::to_string(max_col) + " " +
                    std::to_string(max_row) + "; allowed: 0..m and 0..n");

    auto read_weights = [&](long long count, long long limit, const char* what) {
        // Grown as read: a short text declaring n = 2^24 must not cost 64 MB (each
        // weight takes at least two characters of the text).
        std::vector<int> w;
        w.reserve(static_cast<size_t>(
            std::min<long long>(count, static_cast<long long>(text.size() / 2 + 1))));
        for (long long i = 0; i < count; i++) {
            const long long v =
                in.next(std::string(what) + " weight " + std::to_string(i + 1));
            if (v < 0 || v > limit)
                in.fail(in.line(),
                        std::string(what) + " " + std::to_string(i + 1) + " has weight " +
                            std::to_string(v) + "; allowed: 0.." + std::to_string(limit) +
                            " (the declared largest weight)");
            w.push_back(static_cast<int>(v));
        }
        return w;
    };
    const std::vector<int> col_w = read_weights(n, max_col, "column");
    const std::vector<int> row_w = read_weights(m, max_row, "row");
    long long col_sum = 0, row_sum = 0;
    for (int w : col_w)
        col_sum += w;
    for (int w : row_w)
        row_sum += w;
    if (col_sum != row_sum)
        in.fail(in.line(),
                "the column weights add up to " + std::to_string(col_sum) +
                    " but the row weights to " + std::to_string(row_sum));

    // One list per column (row indices), then one per row (column indices), 1-based.
    std::vector<int> row_line(m); // where each row list starts, for messages
    auto read_lists = [&](const std::vector<int>& weights,
                          long long limit,
                          const char* what,
                          const char* other,
                          std::vector<int>* lines) {
        std::vector<std::vector<int>> lists(weights.size());
        std::vector<int> seen(limit, -1);
        for (size_t i = 0; i < weights.size(); i++) {
            for (int j = 0; j < weights[i]; j++) {
                const long long v =
                    in.next(std::string(other) + " index " + std::to_string(j + 1) +
                            " of " + what + " " + std::to_string(i + 1));
                if (v < 1 || v > limit)
                    in.fail(in.line(),
                            std::string(what) + " " + std::to_string(i + 1) + " lists " +
                                other + " " + std::to_string(v) + "; allowed: 1.." +
                                std::to_string(limit));
                if (seen[v - 1] == static_cast<int>(i))
                    in.fail(in.line(),
                            std::string(what) + " " + std::to_string(i + 1) + " lists " +
                                other + " " + std::to_string(v) + " twice");
                seen[v - 1] = static_cast<int>(i);
                lists[i].push_back(static_cast<int>(v - 1));
                if (lines && j == 0)
                    (*lines)[i] = in.line();
            }
            in.skip_zeros();
            std::sort(lists[i].begin(), lists[i].end());
        }
        return lists;
    };
    const auto cols = read_lists(col_w, m, "column", "row", nullptr);
    auto rows = read_lists(row_w, n, "row", "column", &row_line);
    in.expect_end();

    // Both halves must describe the same matrix.
    std::vector<std::vector<int>> from_cols(m);
    for (int c = 0; c < n; c++)
        for (int r : cols[c])
            from_cols[r].push_back(c);
    for (int r = 0; r < m; r++)
        if (from_cols[r] != rows[r]) {
            std::vector<int> diff;
            std::set_symmetric_difference(rows[r].begin(),
                                          rows[r].end(),
                                          from_cols[r].begin(),
                                          from_cols[r].end(),
                                          std::back_inserter(diff));
            const int c = diff.front();
            const bool in_row = std::binary_search(rows[r].begin(), rows[r].end(), c);
            in.fail(row_line[r] ? row_line[r] : in.line(),
                    "the column and row lists disagree: row " + std::to_string(r + 1) +
                        (in_row ? " lists" : " does not list") + " column " +
                        std::to_string(c + 1) + " but column " + std::to_string(c + 1) +
                        (in_row ? " does not list" : " lists") + " row " +
                        std::to_string(r + 1));
        }
    rows_out = std::move(rows);
    return static_cast<int>(n);
}

} // namespace

ldpc_alist_code ldpc_alist_code::from_alist_text(const std::string& text,
                                                 const std::string& source)
{
    std::vector<std::vector<int>> rows;
    const int n = parse_alist(text, source, rows);
    return ldpc_alist_code(build(n, std::move(rows), source));
}

ldpc_alist_code ldpc_alist_code::from_alist(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw error("ldpc alist: cannot open \"" + path + "\": " + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    std::vector<std::vector<int>> rows;
    const int n = parse_alist(ss.str(), path, rows);
    // describe() names the file by its base name; parse errors name the full path.
    return ldpc_alist_code(build(n, std::move(rows), base_name(path)));
}

ldpc_alist_code ldpc_alist_code::from_check_rows(int n,
                                                 std::vector<std::vector<int>> rows,
                                                 const std::string& source)
{
    if (n < 1 || n > max_dimension || rows.empty() ||
        rows.size() > static_cast<size_t>(max_dimension))
        throw error("ldpc alist " + source + ": n = " + std::to_string(n) +
                    ", m = " + std::to_string(rows.size()) + "; allowed: 1.." +
                    std::to_string(max_dimension) + " each");
    for (size_t r = 0; r < rows.size(); r++) {
        std::sort(rows[r].begin(), rows[r].end());
        for (size_t j = 0; j < rows[r].size(); j++) {
            const int c = rows[r][j];
            if (c < 0 || c >= n)
                throw error("ldpc alist " + source + ": row " + std::to_string(r) +
                            " has column " + std::to_string(c) + "; allowed: 0.." +
                            std::to_string(n - 1));
            if (j > 0 && rows[r][j - 1] == c)
                throw error("ldpc alist " + source + ": row " + std::to_string(r) +
                            " lists column " + std::to_string(c) + " twice");
        }
    }
    return ldpc_alist_code(build(n, std::move(rows), source));
}

int ldpc_alist_code::n() const { return d->n; }
int ldpc_alist_code::m() const { return d->m; }
int ldpc_alist_code::k() const { return d->k; }
int ldpc_alist_code::rank() const { return d->rank; }
size_t ldpc_alist_code::edges() const { return d->edges; }
const std::vector<std::vector<int>>& ldpc_alist_code::check_rows() const
{
    return d->rows;
}
const std::vector<int>& ldpc_alist_code::info_positions() const { return d->info; }
const std::vector<std::vector<int>>& ldpc_alist_code::layers() const { return d->layers; }
bool ldpc_alist_code::triangular_encoder() const { return d->triangular; }

void ldpc_alist_code::encode(const uint8_t* info, uint8_t* codeword) const
{
    const impl& p = *d;
    std::fill(codeword, codeword + p.n, 0);
    for (int i = 0; i < p.k; i++)
        codeword[p.info[i]] = info[i] & 1;
    if (p.triangular) {
        // The pivot is still 0 when its row is summed.
        for (int t = 0; t < p.m; t++) {
            uint8_t s = 0;
            for (int c : p.rows[p.order[t]])
                s ^= codeword[c];
            codeword[p.pivot[t]] = s;
        }
        return;
    }
    std::vector<uint64_t> x(p.words, 0);
    for (int i = 0; i < p.k; i++)
        if (info[i] & 1)
            x[p.info[i] >> 6] |= uint64_t(1) << (p.info[i] & 63);
    for (int r = 0; r < p.rank; r++) {
        const uint64_t* g = &p.dense[r * p.words];
        uint64_t acc = 0;
        for (size_t w = 0; w < p.words; w++)
            acc ^= g[w] & x[w];
        codeword[p.pivot[r]] = static_cast<uint8_t>(__builtin_popcountll(acc) & 1);
    }
}

bool ldpc_alist_code::is_codeword(const uint8_t* codeword) const
{
    for (const auto& row : d->rows) {
        uint8_t s = 0;
        for (int c : row)
            s ^= codeword[c];
        if (s & 1)
            return false;
    }
    return true;
}

std::string ldpc_alist_code::to_alist_text() const
{
    const impl& p = *d;
    std::vector<std::vector<int>> cols(p.n);
    for (int r = 0; r < p.m; r++)
        for (int c : p.rows[r])
            cols[c].push_back(r);
    size_t max_col = 0, max_row = 0;
    for (const auto& c : cols)
        max_col = std::max(max_col, c.size());
    for (const auto& r : p.rows)
        max_row = std::max(max_row, r.size());
    std::string s;
    s += std::to_string(p.n) + " " + std::to_string(p.m) + "\n";
    s += std::to_string(max_col) + " " + std::to_string(max_row) + "\n";
    auto weights = [&](const std::vector<std::vector<int>>& lists) {
        for (size_t i = 0; i < lists.size(); i++)
            s += std::to_string(lists[i].size()) + (i + 1 < lists.size() ? " " : "\n");
    };
    weights(cols);
    weights(p.rows);
    // MacKay pads every list with zeros to the largest weight.
    auto lists = [&](const std::vector<std::vector<int>>& ls, size_t width) {
        for (const auto& l : ls) {
            for (size_t j = 0; j < width; j++)
                s += std::to_string(j < l.size() ? l[j] + 1 : 0) +
                     (j + 1 < width ? " " : "");
            s += "\n";
        }
    };
    lists(cols, max_col);
    lists(p.rows, max_row);
    return s;
}

std::string ldpc_alist_code::describe() const
{
    std::string s = "LDPC alist n=" + std::to_string(d->n) + " k=" + std::to_string(d->k);
    if (d->rank < d->m)
        s += " m=" + std::to_string(d->m);
    return s + " (" + d->source + ")";
}

ldpc_graph ldpc_alist_code::graph() const
{
    ldpc_graph g;
    g.z = 1;
    g.base_columns = d->n;
    g.description = describe();
    g.layer_start.push_back(0);
    g.row_start.push_back(0);
    for (const auto& layer : d->layers) {
        for (int r : layer) {
            const auto& cols = d->rows[r];
            g.edge_col.insert(g.edge_col.end(), cols.begin(), cols.end());
            g.row_start.push_back(static_cast<int>(g.edge_col.size()));
        }
        g.layer_start.push_back(static_cast<int>(g.row_start.size()) - 1);
    }
    g.edge_shift.assign(g.edge_col.size(), 0);
    g.info_positions = d->info;
    g.channel_map.resize(d->n);
    for (int v = 0; v < d->n; v++)
        g.channel_map[v] = v;
    g.finish();
    return g;
}

} // namespace gpufec
