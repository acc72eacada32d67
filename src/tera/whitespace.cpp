// `{%-` trims the whitespace before a tag, `-%}` the whitespace after it.
// The rules, including their odd corners (the body of a for loop's `else`
// is left alone), are Tera's.

#include "tera/template.hpp"
#include "tera/unicode_space.hpp"

namespace sindri::tera {

namespace {

// Trims the end of the last of the first `count` nodes when it is text, and
// drops it (decrementing `count`) if nothing is left.
void trim_last_text(Body& nodes, size_t& count) {
  if (count == 0 || nodes[count - 1]->kind != Node::Kind::Text) return;
  std::string_view& text = nodes[count - 1]->text;
  text = rust_trim_end(text);
  if (text.empty()) --count;
}

void trim_last_text(Body& nodes) {
  size_t count = nodes.size();
  trim_last_text(nodes, count);
  nodes.truncate(count);
}

}  // namespace

// Compacts `nodes` in place: a kept node moves down to index `kept`, which
// never passes the node being looked at.
void remove_whitespace(Body& nodes, const WS* body_ws) {
  size_t kept = 0;
  bool previous_was_text = false;
  bool trim_left_next = body_ws && body_ws->left;

  for (NodePtr n : nodes) {
    switch (n->kind) {
      case Node::Kind::Text: {
        previous_was_text = true;
        if (trim_left_next) {
          trim_left_next = false;
          n->text = rust_trim_start(n->text);
          if (n->text.empty()) continue;
        }
        nodes[kept++] = n;
        continue;
      }
      case Node::Kind::Print:
      case Node::Kind::Import:
      case Node::Kind::Extends:
      case Node::Kind::Include:
      case Node::Kind::Set:
      case Node::Kind::Break:
      case Node::Kind::Comment:
      case Node::Kind::Continue:
        if (previous_was_text && n->ws.left) trim_last_text(nodes, kept);
        trim_left_next = n->ws.right;
        break;
      case Node::Kind::Raw: {
        if (previous_was_text && n->ws.left) trim_last_text(nodes, kept);
        previous_was_text = false;
        trim_left_next = n->end_ws.right;
        if (n->ws.right) n->text = rust_trim_start(n->text);
        if (n->end_ws.left) n->text = rust_trim_end(n->text);
        nodes[kept++] = n;
        continue;
      }
      case Node::Kind::For:
      case Node::Kind::MacroDef:
      case Node::Kind::FilterSection:
      case Node::Kind::Block: {
        if (previous_was_text && n->ws.left) trim_last_text(nodes, kept);
        previous_was_text = false;
        trim_left_next = n->end_ws.right;
        WS inner{n->ws.right, n->end_ws.left};
        remove_whitespace(n->kind == Node::Kind::MacroDef ? n->macro->body : n->body, &inner);
        nodes[kept++] = n;
        continue;
      }
      case Node::Kind::If: {
        trim_left_next = n->end_ws.right;
        for (size_t i = 0; i < n->branches.size(); ++i) {
          IfBranch& branch = n->branches[i];
          if (branch.ws.left) {
            if (i == 0 && previous_was_text) {
              trim_last_text(nodes, kept);
            } else if (i > 0) {
              trim_last_text(n->branches[i - 1].body);
            }
          }
          WS inner{branch.ws.right, false};
          remove_whitespace(branch.body, &inner);
        }
        previous_was_text = false;
        if (n->has_else) {
          if (n->else_ws.left) trim_last_text(n->branches.back().body);
          WS inner{n->else_ws.right, false};
          remove_whitespace(n->else_body, &inner);
          if (n->end_ws.left) trim_last_text(n->else_body);
        } else if (n->end_ws.left) {
          trim_last_text(n->branches.back().body);
        }
        nodes[kept++] = n;
        continue;
      }
      case Node::Kind::Super:
        break;
    }
    previous_was_text = false;
    nodes[kept++] = n;
  }

  if (body_ws && body_ws->right) trim_last_text(nodes, kept);
  nodes.truncate(kept);
}

}  // namespace sindri::tera
