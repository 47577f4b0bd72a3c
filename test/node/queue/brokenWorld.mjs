// A world module whose every episode throws while it is set up: what a bug in a researcher's world
// looks like to a sweep on a queue. Plain JavaScript, so any `aicc worker` can load it.
export default {
  name: 'broken',
  params: {},
  maxTicks: 10,
  setup() {
    throw new Error('the broken world cannot set up');
  },
};
