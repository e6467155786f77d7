import { useTitle } from '../hooks';
import { useStudio } from '../studio';

export function NotFound() {
  const studio = useStudio();
  useTitle('Not found', studio.settings.title);
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no page here. <a href={studio.href('/')}>Go to the start page</a>.
      </p>
    </>
  );
}
