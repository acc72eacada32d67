// A CodeMirror 6 editor as a React component: the text goes out through
// onChange, problems come in as lint diagnostics at their line and column.
// Tab is left to move focus, so the page stays usable by keyboard.
import { useEffect, useImperativeHandle, useRef, type Ref } from "react";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import { bracketMatching, defaultHighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { jinja2 } from "@codemirror/legacy-modes/mode/jinja2";
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState, type Extension, type Text } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import type { EditorProblem } from "./check";
import type { Place } from "./schemaText";

export type EditorLanguage = "tera" | "yaml" | "json";

const LANGUAGES: Record<EditorLanguage, () => Extension> = {
  tera: () => StreamLanguage.define(jinja2),
  yaml: () => yaml(),
  json: () => json(),
};

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--bg)", color: "var(--fg)", fontSize: "13px" },
  ".cm-content": { fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace', caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--accent) 8%, transparent)" },
  "&.cm-focused": { outline: "none" },
});

// A problem's place as a document range, clamped to the text as it is now:
// from its column to the end of the word there.
export function rangeOf(doc: Text, place: Place | undefined): { from: number; to: number } {
  if (!place) return { from: 0, to: 0 };
  const line = doc.line(Math.min(Math.max(place.line, 1), doc.lines));
  const from = Math.min(line.from + Math.max(place.column - 1, 0), line.to);
  const word = /^\S*/.exec(line.text.slice(from - line.from))![0];
  return { from, to: from + Math.max(word.length, from < line.to ? 1 : 0) };
}

// A problem without a place (an empty text) is only listed: a marker at the
// start would point at nothing in particular.
export function diagnostics(doc: Text, problems: EditorProblem[]): Diagnostic[] {
  return problems
    .filter((problem) => problem.place !== undefined)
    .map((problem) => ({
      ...rangeOf(doc, problem.place),
      severity: "error",
      source: problem.code,
      message: problem.message,
    }));
}

export interface CodeEditorHandle {
  moveTo(place: Place | undefined): void;
}

export function CodeEditor({
  value,
  onChange,
  language,
  label,
  problems,
  ref,
}: {
  value: string;
  onChange: (text: string) => void;
  language: EditorLanguage;
  label: string;
  problems: EditorProblem[];
  ref?: Ref<CodeEditorHandle>;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const languageSlot = useRef(new Compartment());
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap, ...lintKeymap]),
          lintGutter(),
          languageSlot.current.of(LANGUAGES[language]()),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
          theme,
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // Made once; the effects below follow value, language and problems.
  }, []);

  // A text replaced from outside (the schema turned to the other format).
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(LANGUAGES[language]()) });
  }, [language]);

  useEffect(() => {
    const editor = view.current;
    if (editor) editor.dispatch(setDiagnostics(editor.state, diagnostics(editor.state.doc, problems)));
  }, [problems]);

  useImperativeHandle(
    ref,
    () => ({
      moveTo(place) {
        const editor = view.current;
        if (!editor) return;
        const { from } = rangeOf(editor.state.doc, place);
        editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
        editor.focus();
      },
    }),
    [],
  );

  return <div ref={host} className="editor-pane" data-testid={`editor-${language === "tera" ? "content" : "schema"}`} />;
}
