// The trace's observations as nested lists, each with a bar showing when it ran within the
// trace. Each is a link to the trace with it selected, so a selection can be shared and Back
// returns to the previous one.
import { formatSeconds } from '../../format.ts';
import { traceHref } from '../../links.ts';
import { timing, type Span, type TreeNode } from './tree.ts';

type Props = { traceId: string; span: Span; selectedId: string | undefined };

export function ObservationTree({ roots, ...props }: Props & { roots: TreeNode[] }) {
  return (
    <ul className="obs-tree" aria-label="Observations">
      {roots.map((n) => (
        <Branch key={n.obs.id} node={n} {...props} />
      ))}
    </ul>
  );
}

function Branch({ node, ...props }: Props & { node: TreeNode }) {
  const { traceId, span, selectedId } = props;
  const o = node.obs;
  const t = timing(o, span);
  const selected = o.id === selectedId;
  return (
    <li>
      <div className={selected ? 'obs-row selected' : 'obs-row'}>
        <span className="obs-label">
          <span className={`badge type type-${o.type.toLowerCase()}`}>{o.type}</span>{' '}
          <a href={traceHref(traceId, o.id)} aria-current={selected ? 'true' : undefined}>
            {o.name || <code>{o.id}</code>}
          </a>
          {o.model ? <span className="muted"> · {o.model}</span> : null}
          {o.level && o.level !== 'DEFAULT' ? (
            <>
              {' '}
              <span className={o.level === 'ERROR' ? 'badge bad' : 'badge warn'}>{o.level}</span>
            </>
          ) : null}
        </span>
        <span className="obs-timing">
          <span className="timing-track" aria-hidden="true">
            <span className="timing-bar" style={{ marginLeft: `${t.offset}%`, width: `${t.width}%` }} />
          </span>
          <span className="muted timing-text">
            +{formatSeconds(t.startS)} · {t.durationS === null ? 'no end' : formatSeconds(t.durationS)}
          </span>
        </span>
      </div>
      {node.children.length ? (
        <ul>
          {node.children.map((c) => (
            <Branch key={c.obs.id} node={c} {...props} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
