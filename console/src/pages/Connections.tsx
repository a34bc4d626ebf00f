// LLM connections: the project's stored provider connections (keys masked), a form to create or
// update one per adapter, and a probe per connection. The playground and evaluators use them.
import { useEffect, useRef, useState } from 'react';
import { useTally } from '../api.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { useLoad } from '../hooks.ts';
import type { LlmConnection } from '../../../sdk/index.ts';
import { ConnectionForm } from './connections/ConnectionForm.tsx';
import { ConnectionList } from './connections/ConnectionList.tsx';
import './connections/connections.css';

export function Connections() {
  const tally = useTally();
  const list = useLoad(async () => {
    const all: LlmConnection[] = [];
    for await (const c of tally.llmConnections.iterate({ query: { limit: 100 } })) all.push(c);
    return all;
  }, [tally]);
  const [editing, setEditing] = useState<LlmConnection>();
  const [notice, setNotice] = useState<string>();
  const formTop = useRef<HTMLDivElement>(null);
  // a deleted row takes the focused button with it: focus lands on the notice instead of the page
  const noticeRef = useRef<HTMLDivElement>(null);
  const [focusNotice, setFocusNotice] = useState(0);
  useEffect(() => {
    if (focusNotice) noticeRef.current?.focus();
  }, [focusNotice]);
  // leaving the edit form swaps it for the new-connection form, which would drop focus to the page:
  // a cancel goes back to the row's Edit button
  const listRef = useRef<HTMLDivElement>(null);
  const [backToEdit, setBackToEdit] = useState<string>();
  useEffect(() => {
    if (backToEdit === undefined) return;
    [...(listRef.current?.querySelectorAll('button') ?? [])].find((b) => b.getAttribute('aria-label') === `Edit ${backToEdit}`)?.focus();
    setBackToEdit(undefined);
  }, [backToEdit]);

  function edit(c: LlmConnection) {
    setEditing(c);
    setNotice(undefined);
    // the form is above the list: bring it into view for keyboard and small screens
    requestAnimationFrame(() => formTop.current?.scrollIntoView?.({ block: 'start' }));
  }

  return (
    <div className="connections-page">
      <p className="muted">
        Connections to LLM providers, used by the playground and the LLM-as-a-judge evaluators. Keys are stored encrypted and never shown
        again.
      </p>
      <div ref={formTop}>
        <ConnectionForm
          key={editing?.id ?? 'new'}
          editing={editing}
          onSaved={(c, created) => {
            setEditing(undefined);
            setNotice(`${created ? 'Created' : 'Saved'} connection ${c.provider}.`);
            if (editing) setFocusNotice((n) => n + 1);
            list.reload();
          }}
          onCancel={
            editing
              ? () => {
                  setEditing(undefined);
                  setBackToEdit(editing.provider);
                }
              : undefined
          }
        />
      </div>
      <div role="status">
        {notice ? (
          <div className="ok-banner" ref={noticeRef} tabIndex={-1}>
            {notice}
          </div>
        ) : null}
      </div>
      <h2>Connections</h2>
      <ErrorBanner problem={list.error} title="Could not list the connections" />
      {list.error ? (
        <button type="button" className="secondary" onClick={list.reload}>
          Reload connections
        </button>
      ) : null}
      {list.loading && !list.data ? (
        <p className="muted" role="status">
          Loading connections…
        </p>
      ) : null}
      {list.data && list.data.length === 0 ? (
        <EmptyState title="No LLM connections yet">
          Create one with the form above (a provider name, an adapter and its key) to use the playground and evaluators.
        </EmptyState>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <div ref={listRef}>
          <ConnectionList
            connections={list.data}
            onEdit={edit}
            onDeleted={(c) => {
              if (editing?.id === c.id) setEditing(undefined);
              setNotice(`Deleted connection ${c.provider}.`);
              setFocusNotice((n) => n + 1);
              list.reload();
            }}
          />
        </div>
      ) : null}
    </div>
  );
}
