// The chat messages sent to the model: role and content per row, rows added and removed.
import type { FieldErrors } from '../../api.ts';
import { Field } from '../../components/Field.tsx';
import type { LlmMessage } from '../../../../sdk/index.ts';

const ROLES: LlmMessage['role'][] = ['system', 'user', 'assistant'];

export function MessagesEditor({
  messages,
  onChange,
  fields,
}: {
  messages: LlmMessage[];
  onChange: (m: LlmMessage[]) => void;
  fields: FieldErrors;
}) {
  const put = (i: number, m: LlmMessage) => onChange(messages.map((x, j) => (j === i ? m : x)));
  // after a user message the model answers; after anything else the user speaks
  const nextRole = (): LlmMessage['role'] => (messages.at(-1)?.role === 'user' ? 'assistant' : 'user');
  return (
    <fieldset className="messages">
      <legend>Messages</legend>
      {fields.messages ? (
        <div className="field-error" role="alert">
          {fields.messages}
        </div>
      ) : null}
      {messages.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a message is its position in the conversation; field errors are keyed the same way
        <div className="message-row" key={i}>
          <Field label={`Role of message ${i + 1}`} error={fields[`messages.${i}.role`]}>
            {(ids) => (
              <select {...ids} value={m.role} onChange={(e) => put(i, { ...m, role: e.target.value as LlmMessage['role'] })}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={`Content of message ${i + 1}`} error={fields[`messages.${i}.content`] ?? fields[`messages.${i}`]}>
            {(ids) => <textarea {...ids} value={m.content} onChange={(e) => put(i, { ...m, content: e.target.value })} />}
          </Field>
          <button
            type="button"
            className="danger"
            aria-label={`Remove message ${i + 1}`}
            onClick={() => onChange(messages.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...messages, { role: nextRole(), content: '' }])}>
        Add message
      </button>
    </fieldset>
  );
}
