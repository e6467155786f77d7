/** A modal dialog on the native <dialog> element: focus is trapped and Escape closes it, by the browser. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const titleId = `dialog-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function Confirm({
  title,
  message,
  confirm,
  onConfirm,
  onCancel,
}: {
  title: string;
  message: string;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog title={title} onClose={onCancel}>
      <p>{message}</p>
      <div class="buttons">
        <button type="button" class="danger" onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
