package dev.kiln.search.fusion;

/** The fusion contract for the min-max score blend (Kiln's default fusion). */
class MinMaxBlendContractTest extends FusionContract {
  @Override
  protected Fusion fusion() {
    return new MinMaxBlend(0.5);
  }
}
