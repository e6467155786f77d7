/** A module that is no storage backend: save only. */
export default {
  async save() {
    return { id: 'x' };
  },
};
