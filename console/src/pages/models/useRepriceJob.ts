// One reprice job as the panel follows it: started with a POST, then read every POLL_MS until it
// has succeeded or failed. Starting another job or unmounting (the panel closing) stops the reads;
// the job itself runs on in the server either way.
import { useEffect, useRef, useState } from 'react';
import { describeError, useTally, type ProblemText } from '../../api.ts';
import type { RepriceJob, RepriceJobStatus, RepriceRequest } from '../../../../sdk/index.ts';

export const POLL_MS = 500;

const FINISHED: ReadonlySet<RepriceJobStatus> = new Set(['succeeded', 'failed']);
export const isFinished = (status: RepriceJobStatus | undefined) => status !== undefined && FINISHED.has(status);

export interface FollowedJob {
  /** the body it was started with */
  request?: RepriceRequest;
  id?: string;
  status?: RepriceJobStatus;
  /** the latest read; absent until the first one answers */
  job?: RepriceJob;
  /** the POST was refused, or a read failed (the job may still be running: `checkAgain`) */
  problem?: ProblemText;
  /** which call `problem` came from */
  problemIn?: 'start' | 'read';
  starting: boolean;
}

/** `onChange` runs when a job is accepted and when it finishes (to refresh the audit list). */
export function useRepriceJob(onChange?: () => void) {
  const tally = useTally();
  const [state, setState] = useState<FollowedJob>({ starting: false });
  const run = useRef(0);
  const stopReads = useRef<() => void>(() => {});
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(
    () => () => {
      run.current++;
      stopReads.current();
    },
    [],
  );

  function follow(id: string, mine: number, firstDelay: number) {
    stopReads.current();
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    stopReads.current = () => {
      live = false;
      clearTimeout(timer);
    };
    const read = async () => {
      try {
        const { data } = await tally.models.repriceGet({ path: { id } });
        if (!live || mine !== run.current) return;
        setState((s) => ({ ...s, job: data, status: data.status, problem: undefined, problemIn: undefined }));
        if (isFinished(data.status)) changed.current?.();
        else timer = setTimeout(read, POLL_MS);
      } catch (e) {
        if (live && mine === run.current) setState((s) => ({ ...s, problem: describeError(e), problemIn: 'read' }));
      }
    };
    timer = setTimeout(read, firstDelay);
  }

  async function start(request: RepriceRequest) {
    const mine = ++run.current;
    stopReads.current();
    setState({ request, starting: true });
    try {
      const { data } = await tally.models.reprice({ body: request });
      if (mine !== run.current) return;
      setState({ request, id: data.id, status: data.status, starting: false });
      changed.current?.();
      follow(data.id, mine, POLL_MS);
    } catch (e) {
      if (mine === run.current) setState({ request, problem: describeError(e), problemIn: 'start', starting: false });
    }
  }

  /** after a failed read: read again now, and on from there */
  function checkAgain() {
    if (state.id) follow(state.id, run.current, 0);
  }

  /** forget the job (its reads stop) */
  function clear() {
    run.current++;
    stopReads.current();
    setState({ starting: false });
  }

  // a job whose reads failed is not known to be running: it no longer holds the panel's buttons
  const active = state.starting || (state.id !== undefined && !isFinished(state.status) && state.problemIn !== 'read');
  return { ...state, active, start, checkAgain, clear };
}

export type FollowedJobControls = ReturnType<typeof useRepriceJob>;
