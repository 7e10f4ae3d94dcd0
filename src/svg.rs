//! Graphs drawn as SVG (`tape.draw`, `draw_graph`). The pure-Rust `layout-rs` crate places
//! the nodes in layers (the Sugiyama method of Graphviz's `dot`, so no `dot` binary is
//! needed) and routes the edges; the text is written here, not by the crate's own SVG
//! writer (whose style classes come out of a `HashMap`), so that the same graph always gives
//! the same bytes: no random ids, no timestamps, nodes and edges in the caller's order,
//! coordinates rounded to 0.1 px. Knows nothing of tapes: `builtins/tape_view.rs` says what
//! to draw.

use layout::adt::dag::NodeHandle;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::Visible;
use layout::core::geometry::{Point, Position};
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use layout::topo::placer::Placer;
use std::cell::Cell;
use std::fmt::Write;
use std::panic::AssertUnwindSafe;

/// How a node looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A watched source or Variable (blue).
    Input,
    /// An operation that saves nothing (white).
    Op,
    /// An operation holding saved tensors for its backward step (orange).
    Saved,
    /// An operation whose saved tensors were released after its backward step (grey, dashed).
    Released,
    /// A checkpoint: a `recompute_grad` call, which saves only its inputs (green).
    Checkpoint,
}

impl Look {
    fn class(self) -> &'static str {
        match self {
            Look::Input => "input",
            Look::Op => "op",
            Look::Saved => "saved",
            Look::Released => "released",
            Look::Checkpoint => "checkpoint",
        }
    }
}

/// A node: lines of text (the first in bold) in a box.
#[derive(Clone, Debug)]
pub struct Node {
    pub lines: Vec<String>,
    pub look: Look,
}

/// An edge between two nodes (indices into [`Graph::nodes`]), with a label.
#[derive(Clone, Debug)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: String,
}

/// A box drawn around some nodes (a checkpoint region), labelled at its top left.
#[derive(Clone, Debug)]
pub struct Group {
    pub label: String,
    pub members: Vec<usize>,
}

/// What to draw: a title line, then the graph, top to bottom.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub title: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub groups: Vec<Group>,
}

/// Node text: 12 px monospace, about 7.2 px a character.
const CHAR_W: f64 = 7.4;
const LINE_H: f64 = 15.0;
/// Edge labels: 11 px monospace. layout-rs sizes a label `font_size` px a character
/// (its font size is a size here, never a font), which leaves room for 11 px text.
const EDGE_FONT: usize = 7;
const MARGIN: f64 = 16.0;
/// Room above the graph for the title.
const TITLE_H: f64 = 24.0;
/// Room inside a group's box around its nodes, and above them for its label.
const GROUP_PAD: f64 = 10.0;
const GROUP_LABEL_H: f64 = 16.0;

/// The SVG text of `g`.
pub fn render(g: &Graph) -> String {
    let placed = if g.nodes.is_empty() { Placed::default() } else { place(g) };
    write_svg(g, &placed)
}

/// Where layout put things: a box per node (top-left, bottom-right), each edge's path (the
/// points it passes through, top to bottom) and its label's place.
#[derive(Default)]
struct Placed {
    boxes: Vec<(Point, Point)>,
    paths: Vec<Vec<Point>>,
    labels: Vec<(Point, String)>,
}

thread_local! {
    /// True while layout-rs runs on this thread: a panic then is caught (see [`place`]), and
    /// the CLI's panic hook stays quiet about it.
    static LAYING_OUT: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside layout-rs (for the panic hook: such a panic is caught).
pub fn laying_out() -> bool {
    LAYING_OUT.with(|l| l.get())
}

/// Lays `g` out with layout-rs; should that crate panic on some graph (its placer asserts
/// invariants that a few graphs break), with a plain layered layout of our own instead.
fn place(g: &Graph) -> Placed {
    LAYING_OUT.with(|l| l.set(true));
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| place_layered(g)));
    LAYING_OUT.with(|l| l.set(false));
    r.unwrap_or_else(|_| place_simple(g))
}

/// The edges to draw: forward ones (layout-rs needs a DAG), each pair once.
fn drawn_edges(g: &Graph) -> Vec<&Edge> {
    let mut seen = std::collections::HashSet::new();
    g.edges.iter().filter(|e| e.from < e.to && e.to < g.nodes.len() && seen.insert((e.from, e.to))).collect()
}

/// layout-rs's placement: nodes in ranks, long edges through invisible connectors, edge
/// labels in connectors of their own; the edges are routed here through those connectors
/// (the crate's own router can fail on a zero-length segment).
fn place_layered(g: &Graph) -> Placed {
    let dir = Orientation::TopToBottom;
    let mut vg = VisualGraph::new(dir);
    let plain = StyleAttr::new(Color::fast("black"), 1, None, 0, 12);
    let handles: Vec<NodeHandle> = g
        .nodes
        .iter()
        .map(|n| {
            let mut e = Element::create(ShapeKind::new_box(""), plain.clone(), dir, node_size(n));
            e.pos = Position::new(Point::zero(), node_size(n), Point::zero(), Point::new(28.0, 36.0));
            vg.add_node(e)
        })
        .collect();
    let edge_look = StyleAttr::new(Color::fast("black"), 1, None, 0, EDGE_FONT);
    let edges = drawn_edges(g);
    // The edges go into the DAG directly, not through `to_valid_dag`: they already point
    // forward, and its cycle check (like `DAG::verify`, switched off) walks every path, which
    // takes exponential time on a tape whose values are reused (a 70-entry chain: minutes).
    vg.dag.set_validate(false);
    for e in &edges {
        let mut arrow = Arrow::simple(&e.label);
        arrow.look = edge_look.clone();
        vg.add_edge(arrow, handles[e.from], handles[e.to]);
        vg.dag.add_edge(handles[e.from], handles[e.to]);
    }
    vg.split_text_edges();
    vg.split_long_edges(false);
    let all: Vec<NodeHandle> = vg.iter_nodes().collect();
    for h in all {
        vg.element_mut(h).resize();
    }
    Placer::new(&mut vg).layout(false);
    let boxes: Vec<(Point, Point)> = handles.iter().map(|&h| vg.pos(h).bbox(false)).collect();
    let mut out = Placed { boxes, ..Placed::default() };
    for e in &edges {
        let target = handles[e.to];
        // The connectors between the two nodes: follow the chain that ends at `to`.
        let chain = vg.succ(handles[e.from]).iter().find_map(|&first| {
            let mut chain = Vec::new();
            let mut cur = first;
            while vg.is_connector(cur) {
                chain.push(cur);
                cur = *vg.succ(cur).first()?;
            }
            (cur == target).then_some(chain)
        });
        let chain = chain.unwrap_or_default();
        let mut label_at = None;
        for &c in &chain {
            if let ShapeKind::Connector(Some(_)) = vg.element(c).shape {
                label_at.get_or_insert(vg.pos(c).middle());
            }
        }
        let mut path = vec![Point::zero()];
        path.extend(chain.iter().map(|&c| vg.pos(c).center()));
        path.push(Point::zero());
        out.paths.push(path);
        let at = label_at.unwrap_or_else(|| midpoint(&out.boxes, e));
        out.labels.push((at, e.label.clone()));
    }
    attach_ends(&mut out, &edges);
    out
}

/// Where an edge's label goes when no connector holds it: halfway between its nodes.
fn midpoint(boxes: &[(Point, Point)], e: &Edge) -> Point {
    let (a, b) = (boxes[e.from], boxes[e.to]);
    Point::new((a.0.x + a.1.x + b.0.x + b.1.x) / 4.0, (a.1.y + b.0.y) / 2.0)
}

/// A plain layered layout: each node one rank below its lowest predecessor, ranks filled
/// left to right in node order; edges straight from one rank to the next.
fn place_simple(g: &Graph) -> Placed {
    let edges = drawn_edges(g);
    let mut rank = vec![0usize; g.nodes.len()];
    for e in &edges {
        // Edges point forward in node order, so one pass in that order settles every rank.
        rank[e.to] = rank[e.to].max(rank[e.from] + 1);
    }
    let mut x_in_rank: Vec<f64> = Vec::new();
    let mut boxes = Vec::with_capacity(g.nodes.len());
    for (n, &r) in g.nodes.iter().zip(&rank) {
        if x_in_rank.len() <= r {
            x_in_rank.resize(r + 1, 0.0);
        }
        let size = node_size(n);
        let top_left = Point::new(x_in_rank[r], r as f64 * 90.0);
        x_in_rank[r] += size.x + 40.0;
        boxes.push((top_left, top_left.add(size)));
    }
    let mut out = Placed { boxes, ..Placed::default() };
    for e in &edges {
        out.paths.push(vec![Point::zero(), Point::zero()]);
        out.labels.push((midpoint(&out.boxes, e), e.label.clone()));
    }
    attach_ends(&mut out, &edges);
    out
}

/// Sets each path's first point on the bottom side of its source box and its last on the top
/// side of its target box, the edges at one side spread along it in the order of the nodes
/// at their other ends, left to right (so that they do not cross there).
fn attach_ends(out: &mut Placed, edges: &[&Edge]) {
    let next_x = |p: &Vec<Point>, k: usize| p.get(k).map_or(0.0, |q| q.x);
    for side in [false, true] {
        // side false: the source ends (bottom); true: the target ends (top).
        let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); out.boxes.len()];
        for (i, e) in edges.iter().enumerate() {
            by_node[if side { e.to } else { e.from }].push(i);
        }
        for (node, list) in by_node.iter_mut().enumerate() {
            let (a, b) = out.boxes[node];
            // Order by where the other end lies: the neighbouring path point, else the other box.
            let key = |i: usize| {
                let p = &out.paths[i];
                let e = edges[i];
                let other = if side { e.from } else { e.to };
                let inner = if side { p.len().wrapping_sub(2) } else { 1 };
                if p.len() > 2 {
                    next_x(p, inner)
                } else {
                    (out.boxes[other].0.x + out.boxes[other].1.x) / 2.0
                }
            };
            list.sort_by(|&i, &j| key(i).total_cmp(&key(j)).then(i.cmp(&j)));
            let m = list.len();
            for (k, &i) in list.iter().enumerate() {
                let x = a.x + (b.x - a.x) * (k + 1) as f64 / (m + 1) as f64;
                let p = &mut out.paths[i];
                if side {
                    let last = p.len() - 1;
                    p[last] = Point::new(x, a.y);
                } else {
                    p[0] = Point::new(x, b.y);
                }
            }
        }
    }
}

/// A node's box: its longest line and its lines, with padding.
fn node_size(n: &Node) -> Point {
    let chars = n.lines.iter().map(|l| l.chars().count()).max().unwrap_or(1).max(4);
    Point::new(chars as f64 * CHAR_W + 16.0, n.lines.len().max(1) as f64 * LINE_H + 10.0)
}

/// An SVG path through `points`, each segment a cubic whose tangents are vertical at both
/// ends, so the curve is smooth where segments meet.
fn curve(points: &[Point]) -> String {
    let mut d = format!("M {} {}", num(points[0].x), num(points[0].y));
    for w in points.windows(2) {
        let (p, q) = (w[0], w[1]);
        let dy = (q.y - p.y) / 2.0;
        let _ =
            write!(d, " C {} {}, {} {}, {} {}", num(p.x), num(p.y + dy), num(q.x), num(q.y - dy), num(q.x), num(q.y));
    }
    d
}

/// The boxes drawn for a group: layout-rs has no clusters, so a group's members may share a
/// row with other nodes. Each row's runs of adjacent members get a box (never covering a
/// node outside the group), and a box reaches down to the run below it when nothing else
/// lies between, so that a group laid out as a column reads as one region. The first box
/// has room at its top for the label.
fn group_rects(grp: &Group, boxes: &[(Point, Point)]) -> Vec<(Point, Point)> {
    let mut member = vec![false; boxes.len()];
    for &m in &grp.members {
        if let Some(x) = member.get_mut(m) {
            *x = true;
        }
    }
    // Rows by the centre's height (layout-rs centres the nodes of a rank on one line).
    let row_of = |b: &(Point, Point)| ((b.0.y + b.1.y) * 5.0).round() as i64;
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| row_of(&boxes[i]).cmp(&row_of(&boxes[j])).then(boxes[i].0.x.total_cmp(&boxes[j].0.x)));
    let mut runs: Vec<(Point, Point)> = Vec::new();
    let mut current: Option<(Point, Point)> = None;
    let mut last_row = None;
    for &i in &order {
        let b = boxes[i];
        if last_row != Some(row_of(&b)) || !member[i] {
            runs.extend(current.take());
        }
        last_row = Some(row_of(&b));
        if member[i] {
            current = Some(match current {
                Some((lo, hi)) => {
                    (Point::new(lo.x.min(b.0.x), lo.y.min(b.0.y)), Point::new(hi.x.max(b.1.x), hi.y.max(b.1.y)))
                }
                None => b,
            });
        }
    }
    runs.extend(current);
    let mut rects: Vec<(Point, Point)> = runs
        .iter()
        .map(|(lo, hi)| {
            (Point::new(lo.x - GROUP_PAD, lo.y - GROUP_PAD), Point::new(hi.x + GROUP_PAD, hi.y + GROUP_PAD))
        })
        .collect();
    let overlaps = |a: (f64, f64), b: (f64, f64)| a.0 < b.1 && b.0 < a.1;
    let free = |lo: Point, hi: Point| {
        !boxes
            .iter()
            .zip(&member)
            .any(|(b, &m)| !m && overlaps((lo.x, hi.x), (b.0.x, b.1.x)) && overlaps((lo.y, hi.y), (b.0.y, b.1.y)))
    };
    if let Some(first) = rects.first_mut() {
        first.0.y -= GROUP_LABEL_H;
        // Wide enough for the label, unless that would cover a node outside the group.
        let wide = first.0.x + grp.label.chars().count() as f64 * 6.8 + 16.0;
        if wide > first.1.x && free(first.0, Point::new(wide, first.1.y)) {
            first.1.x = wide;
        }
    }
    for k in 0..rects.len() {
        let (lo, hi) = rects[k];
        // The nearest box below that shares some width with this one.
        let below = rects[k + 1..]
            .iter()
            .filter(|r| r.0.y > hi.y && overlaps((lo.x, hi.x), (r.0.x, r.1.x)))
            .map(|r| r.0.y)
            .min_by(f64::total_cmp);
        let Some(to) = below else { continue };
        if free(Point::new(lo.x, hi.y), Point::new(hi.x, to)) {
            rects[k].1.y = to;
        }
    }
    rects
}

/// One coordinate: rounded to 0.1 px, and never `-0.0`.
fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    let r = if r == 0.0 { 0.0 } else { r };
    format!("{r}")
}

/// Text for SVG: `&`, `<`, `>` and quotes escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "<style>
text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; fill: #222; }
text.title { font-size: 14px; font-weight: bold; }
text.shape { font-size: 11px; fill: #555; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
text.region { font-size: 11px; fill: #2e7d32; font-weight: bold; }
tspan.name { font-weight: bold; }
path.edge { fill: none; stroke: #666; stroke-width: 1.2; }
rect.region { fill: #f3faf3; stroke: #2e7d32; stroke-width: 1.2; stroke-dasharray: 6 4; }
rect.input { fill: #e3efff; stroke: #3572b0; stroke-width: 1.2; }
rect.op { fill: #ffffff; stroke: #444; stroke-width: 1.2; }
rect.saved { fill: #ffe2bd; stroke: #c46d00; stroke-width: 2; }
rect.released { fill: #eeeeee; stroke: #999; stroke-width: 1.2; stroke-dasharray: 4 3; }
rect.checkpoint { fill: #dff2df; stroke: #2e7d32; stroke-width: 2.5; }
</style>
";

/// Writes the SVG document.
fn write_svg(g: &Graph, p: &Placed) -> String {
    let groups: Vec<(usize, Vec<(Point, Point)>)> =
        g.groups.iter().enumerate().map(|(i, grp)| (i, group_rects(grp, &p.boxes))).collect();
    // The extent of everything drawn; the title sits above it.
    let (mut lo, mut hi) = (Point::new(f64::MAX, f64::MAX), Point::new(f64::MIN, f64::MIN));
    let mut grow = |a: Point, b: Point| {
        lo = Point::new(lo.x.min(a.x), lo.y.min(a.y));
        hi = Point::new(hi.x.max(b.x), hi.y.max(b.y));
    };
    for &(a, b) in p.boxes.iter().chain(groups.iter().flat_map(|(_, r)| r)) {
        grow(a, b);
    }
    for &a in p.paths.iter().flatten() {
        grow(a, a);
    }
    for (xy, text) in &p.labels {
        let half = text.chars().count() as f64 * 3.5;
        grow(Point::new(xy.x - half, xy.y - 8.0), Point::new(xy.x + half, xy.y + 8.0));
    }
    let title_w = g.title.chars().count() as f64 * 9.0;
    if p.boxes.is_empty() {
        (lo, hi) = (Point::new(0.0, 0.0), Point::new(title_w, 0.0));
    }
    let (x0, y0) = (lo.x - MARGIN, lo.y - MARGIN - TITLE_H);
    let w = (hi.x - lo.x).max(title_w) + 2.0 * MARGIN;
    let h = hi.y - lo.y + 2.0 * MARGIN + TITLE_H;

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\">",
        num(w.ceil()),
        num(h.ceil()),
        num(x0),
        num(y0),
        num(w.ceil()),
        num(h.ceil())
    );
    s.push_str(STYLE);
    s.push_str(
        "<defs><marker id=\"arrowhead\" markerWidth=\"10\" markerHeight=\"7\" refX=\"10\" refY=\"3.5\" \
         orient=\"auto\"><polygon points=\"0 0, 10 3.5, 0 7\" fill=\"#666\"/></marker></defs>\n",
    );
    let _ = writeln!(
        s,
        "<text class=\"title\" x=\"{}\" y=\"{}\">{}</text>",
        num(x0 + MARGIN),
        num(y0 + MARGIN + 4.0),
        escape(&g.title)
    );
    for (i, rects) in &groups {
        for (a, b) in rects {
            let _ = writeln!(
                s,
                "<rect class=\"region\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\"/>",
                num(a.x),
                num(a.y),
                num(b.x - a.x),
                num(b.y - a.y)
            );
        }
        if let Some((a, _)) = rects.first() {
            let _ = writeln!(
                s,
                "<text class=\"region\" x=\"{}\" y=\"{}\">{}</text>",
                num(a.x + 8.0),
                num(a.y + 13.0),
                escape(&g.groups[*i].label)
            );
        }
    }
    for path in &p.paths {
        let _ = writeln!(s, "<path class=\"edge\" d=\"{}\" marker-end=\"url(#arrowhead)\"/>", curve(path));
    }
    for (xy, text) in &p.labels {
        let _ = writeln!(
            s,
            "<text class=\"shape\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}</text>",
            num(xy.x),
            num(xy.y),
            escape(text)
        );
    }
    for (n, (a, b)) in g.nodes.iter().zip(&p.boxes) {
        let _ = writeln!(
            s,
            "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>",
            n.look.class(),
            num(a.x),
            num(a.y),
            num(b.x - a.x),
            num(b.y - a.y)
        );
        let cx = (a.x + b.x) / 2.0;
        let top = (a.y + b.y) / 2.0 - n.lines.len() as f64 * LINE_H / 2.0;
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">", num(cx), num(top + 11.0));
        for (k, line) in n.lines.iter().enumerate() {
            let class = if k == 0 { " class=\"name\"" } else { "" };
            let dy = if k == 0 { "0".to_string() } else { num(LINE_H) };
            let _ = write!(s, "<tspan{class} x=\"{}\" dy=\"{dy}\">{}</tspan>", num(cx), escape(line));
        }
        s.push_str("</text>\n");
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str) -> Node {
        Node { lines: vec![name.to_string(), "line 1".into()], look: Look::Op }
    }

    #[test]
    fn the_same_graph_gives_the_same_text() {
        let g = Graph {
            title: "t <&>".into(),
            nodes: vec![node("a"), node("b"), node("c")],
            edges: vec![
                Edge { from: 0, to: 1, label: "f32[2]".into() },
                Edge { from: 0, to: 2, label: "f32[2]".into() },
                Edge { from: 1, to: 2, label: "f32[2]".into() },
            ],
            groups: vec![Group { label: "g@1".into(), members: vec![1, 2] }],
        };
        let a = render(&g);
        assert_eq!(a, render(&g));
        assert!(a.contains("t &lt;&amp;&gt;"));
        assert_eq!(a.matches("<path class=\"edge\"").count(), 3);
        assert_eq!(a.matches("<rect class=\"op\"").count(), 3);
        assert_eq!(a.matches("class=\"shape\"").count(), 3);
    }

    /// The fallback layout (used when layout-rs panics) puts each node below its inputs and
    /// gives every edge a path from the bottom of its source to the top of its target.
    #[test]
    fn the_fallback_layout_places_ranks() {
        let g = Graph {
            title: String::new(),
            nodes: vec![node("a"), node("b"), node("c")],
            edges: vec![Edge { from: 0, to: 2, label: "x".into() }, Edge { from: 1, to: 2, label: "y".into() }],
            groups: vec![],
        };
        let p = place_simple(&g);
        assert_eq!(p.boxes[0].0.y, p.boxes[1].0.y);
        assert!(p.boxes[2].0.y > p.boxes[0].1.y);
        for (path, e) in p.paths.iter().zip(&g.edges) {
            assert_eq!(path[0].y, p.boxes[e.from].1.y);
            assert_eq!(path[path.len() - 1].y, p.boxes[e.to].0.y);
        }
        assert!(!laying_out());
    }

    #[test]
    fn an_empty_graph_is_only_its_title() {
        let s = render(&Graph { title: "nothing recorded".into(), ..Graph::default() });
        assert!(s.contains("nothing recorded") && !s.contains("<rect"));
    }

    /// Random DAGs (edges forward in node order, some repeated, some long) never make the
    /// layout panic: a panic in `tape.draw` would be an interpreter bug.
    #[test]
    fn random_dags_lay_out() {
        let mut state = 12345u64;
        let mut next = |m: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % m.max(1)
        };
        for _ in 0..150 {
            let n = 1 + next(40);
            let nodes = (0..n).map(|i| node(&format!("n{i}"))).collect();
            let mut edges = Vec::new();
            for to in 1..n {
                for _ in 0..next(4) {
                    let from = next(to);
                    if !edges.iter().any(|e: &Edge| e.from == from && e.to == to) {
                        edges.push(Edge { from, to, label: format!("f32[{}]", next(100)) });
                    }
                }
            }
            let groups = vec![Group { label: "r".into(), members: (0..n).filter(|_| next(2) == 0).collect() }];
            let g = Graph { title: "random".into(), nodes, edges, groups };
            let laid = std::panic::catch_unwind(AssertUnwindSafe(|| place_layered(&g)));
            if laid.is_err() {
                let es: Vec<_> = g.edges.iter().map(|e| (e.from, e.to)).collect();
                panic!("FAILCASE n={} {:?}", g.nodes.len(), es);
            }
        }
    }
}
