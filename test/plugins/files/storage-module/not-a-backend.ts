/** A module that is no storage backend: save only. */
export default {
  save: () => Promise.resolve({ id: 'x' }),
};
