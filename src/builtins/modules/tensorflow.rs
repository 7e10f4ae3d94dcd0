//! `import tensorflow as tf`: TensorFlow's names bound to DGL's own values, so TF
//! code runs unedited wherever DGL has the op. Each builtin's declaration lists its TF names
//! (runtime/native.rs `Native::spellings`); the table below holds the rest. `tf.reduce_sum`
//! is `reduce_sum`, `tf.range` is `range_tensor`, `tf.keras.layers.Dense` is `nn.Dense`; `import keras` is
//! `tf.keras`. A TF name is bound only where DGL's function behaves as TF's (the help
//! entries' "TF:" lines name each builtin's counterpart). The builtins bound here follow TF's
//! rules ([`Dialect::Tf`]): `tf.constant([1, 2])` and `tf.add(1, 2)` are int32, as in TF,
//! where DGL's `constant` makes float32. `tf.keras.losses.mse` and the other Keras loss
//! functions return one loss per example, as Keras's do (stdlib/_keras.dgl), where DGL's
//! `losses` functions return their mean.

use super::foreign::Library;
use crate::error::R;
use crate::runtime::value::{Dialect, ModuleHooks, Value};
use crate::runtime::Interp;

/// The dtypes TF lists both as `tf.X` and `tf.dtypes.X` (DGL's builtins of the same names:
/// the ones DGL lacks raise a TypeError naming DGL's dtypes when used).
macro_rules! dtypes {
    () => {
        "float32 float64 int64 int32 bool float16 bfloat16 half uint8 uint16 uint32 uint64 int8 int16 \
         complex64 complex128 qint8 quint8 qint32"
    };
}

/// TensorFlow's names that no builtin's declaration spells (see [`Library::table`]): DGL's
/// stdlib classes and adapters, and the dtypes. A builtin's own TF names (`tf.math.reduce_sum`)
/// are in its declaration, beside its function.
const TABLE: &[(&str, &str)] = &[
    (
        "tensorflow",
        concat!(
            "Tensor Module=_module.Module \
             UnconnectedGradients newaxis __version__=_tf.VERSION executing_eagerly=_tf.executing_eagerly \
             is_tensor=_tf.is_tensor device=_tf.device tensordot=_tf.tensordot assert_equal=_tf.assert_equal \
             TensorSpec=_tf.TensorSpec repeat=_tf.repeat RaggedTensor=_ragged.RaggedTensor SparseTensor=_sparse.SparseTensor \
             assert_less=_tf.assert_less assert_greater=_tf.assert_greater assert_rank=_tf.assert_rank \
             cond=_control.cond case=_control.case switch_case=_control.switch_case \
             while_loop=_control.while_loop scan=_control.scan foldl=_control.foldl foldr=_control.foldr ",
            dtypes!()
        ),
    ),
    ("tensorflow.dtypes", dtypes!()),
    ("tensorflow.errors", "OpError=_tf_errors.OpError InvalidArgumentError=_tf_errors.InvalidArgumentError"),
    (
        "tensorflow.ragged",
        "constant=_ragged.ragged_constant range=_ragged.ragged_range map_flat_values=_ragged.map_flat_values \
         RaggedTensor=_ragged.RaggedTensor",
    ),
    (
        "tensorflow.sparse",
        "SparseTensor=_sparse.SparseTensor to_dense=_sparse.to_dense from_dense=_sparse.from_dense \
         reorder=_sparse.reorder add=_sparse.add reduce_sum=_sparse.reduce_sum reduce_max=_sparse.reduce_max \
         sparse_dense_matmul=_sparse.sparse_dense_matmul transpose=_sparse.transpose reshape=_sparse.reshape \
         retain=_sparse.retain map_values=_sparse.map_values eye=_sparse.eye",
    ),
    (
        "tensorflow.math",
        "divide_no_nan=_tf.divide_no_nan xlogy=_tf.xlogy xlog1py=_tf.xlog1py xdivy=_tf.xdivy \
         reduce_euclidean_norm=_tf.reduce_euclidean_norm count_nonzero=_tf.count_nonzero \
         zero_fraction=_tf.zero_fraction \
         segment_sum=_segments.segment_sum segment_mean=_segments.segment_mean \
         segment_max=_segments.segment_max segment_min=_segments.segment_min \
         segment_prod=_segments.segment_prod unsorted_segment_sum=_segments.unsorted_segment_sum \
         unsorted_segment_mean=_segments.unsorted_segment_mean \
         unsorted_segment_max=_segments.unsorted_segment_max \
         unsorted_segment_min=_segments.unsorted_segment_min \
         unsorted_segment_prod=_segments.unsorted_segment_prod \
         unsorted_segment_sqrt_n=_segments.unsorted_segment_sqrt_n bincount=_segments.bincount \
         confusion_matrix=_segments.confusion_matrix cumulative_logsumexp=_segments.cumulative_logsumexp \
         in_top_k=_segments.in_top_k invert_permutation=_segments.invert_permutation \
         is_non_decreasing=_segments.is_non_decreasing \
         is_strictly_increasing=_segments.is_strictly_increasing accumulate_n=_segments.accumulate_n \
         polyval=_segments.polyval approx_max_k=_segments.approx_max_k approx_min_k=_segments.approx_min_k \
         sobol_sample=_segments.sobol_sample",
    ),
    (
        "tensorflow.debugging",
        "check_numerics=_tf.check_numerics assert_all_finite=_tf.assert_all_finite assert_equal=_tf.assert_equal \
         assert_none_equal=_tf.assert_none_equal assert_less=_tf.assert_less assert_greater=_tf.assert_greater \
         assert_positive=_tf.assert_positive assert_non_negative=_tf.assert_non_negative \
         assert_negative=_tf.assert_negative assert_near=_tf.assert_near assert_rank=_tf.assert_rank",
    ),
    ("tensorflow.data", "Dataset=data.Dataset AUTOTUNE=_tf.AUTOTUNE"),
    (
        "tensorflow.train",
        "Checkpoint=_saving.Checkpoint CheckpointManager=_saving.CheckpointManager \
         latest_checkpoint=_saving.latest_checkpoint list_variables=_saving.list_variables \
         load_checkpoint=_saving.load_checkpoint CheckpointReader=_saving.CheckpointReader",
    ),
    ("tensorflow.saved_model", "save=_saving.saved_model_save load=_saving.saved_model_load"),
    (
        "tensorflow.keras.saving",
        "register_keras_serializable=_saving.register_keras_serializable save_model=_saving.save_model \
         load_model=_saving.load_model get_registered_object=_saving.get_registered_object \
         serialize_keras_object=_saving.serialize_keras_object \
         deserialize_keras_object=_saving.deserialize_keras_object \
         get_custom_objects=_saving.get_custom_objects custom_object_scope=_saving.custom_object_scope \
         CustomObjectScope=_saving.custom_object_scope",
    ),
    (
        "tensorflow.keras.models",
        "Model=nn.Model Sequential=nn.Sequential load_model=_saving.load_model save_model=_saving.save_model \
         clone_model=_keras_utils.clone_model model_from_json=_keras_utils.model_from_json",
    ),
    ("tensorflow.data.experimental", "AUTOTUNE=_tf.AUTOTUNE"),
    (
        "tensorflow.config",
        "list_physical_devices=_tf.list_physical_devices list_logical_devices=_tf.list_logical_devices \
         run_functions_eagerly=_tf.run_functions_eagerly functions_run_eagerly=_tf.functions_run_eagerly",
    ),
    ("tensorflow.config.experimental", "list_physical_devices=_tf.list_physical_devices"),
    (
        "tensorflow.keras",
        "Model=nn.Model Sequential=nn.Sequential Layer=nn.Layer Loss=losses.Loss Metric=metrics.Metric \
         Optimizer=optim.Optimizer Initializer=initializers.Initializer Input=_functional.Input \
         KerasTensor=_layers.KerasTensor Regularizer=_regularizers.Regularizer Variable=_keras_utils.Variable",
    ),
    (
        "tensorflow.keras.layers",
        "Layer=nn.Layer Input=_functional.Input InputLayer=_functional.InputLayer Dense=nn.Dense Lambda=nn.Lambda Flatten=nn.Flatten Dropout=nn.Dropout \
         BatchNormalization=nn.BatchNormalization LayerNormalization=nn.LayerNormalization \
         Embedding=nn.Embedding Conv2D=nn.Conv2D MaxPooling2D=nn.MaxPooling2D MaxPool2D=nn.MaxPool2D \
         AveragePooling2D=nn.AveragePooling2D AvgPool2D=nn.AvgPool2D \
         GlobalAveragePooling2D=nn.GlobalAveragePooling2D GlobalMaxPooling2D=nn.GlobalMaxPooling2D \
         Add=nn.Add Subtract=nn.Subtract Multiply=nn.Multiply Average=nn.Average Maximum=nn.Maximum \
         Minimum=nn.Minimum Concatenate=nn.Concatenate add=nn.add subtract=nn.subtract multiply=nn.multiply \
         average=nn.average concatenate=nn.concatenate Reshape=nn.Reshape Activation=nn.Activation \
         Softmax=nn.Softmax UpSampling2D=nn.UpSampling2D LeakyReLU=nn.LeakyReLU ReLU=nn.ReLU \
         Conv2DTranspose=nn.Conv2DTranspose Conv1D=nn.Conv1D GlobalAveragePooling1D=nn.GlobalAveragePooling1D \
         GlobalMaxPooling1D=nn.GlobalMaxPooling1D SimpleRNN=nn.SimpleRNN LSTM=nn.LSTM GRU=nn.GRU \
         serialize=_keras_utils.serialize deserialize=_keras_utils.deserialize",
    ),
    (
        "tensorflow.keras.optimizers",
        "Optimizer=optim.Optimizer SGD=optim.SGD Adam=optim.Adam AdamW=optim.AdamW RMSprop=optim.RMSprop \
         Adagrad=optim.Adagrad",
    ),
    (
        "tensorflow.keras.optimizers.schedules",
        "LearningRateSchedule=optim.LearningRateSchedule ExponentialDecay=optim.ExponentialDecay \
         InverseTimeDecay=optim.InverseTimeDecay PiecewiseConstantDecay=optim.PiecewiseConstantDecay \
         PolynomialDecay=optim.PolynomialDecay CosineDecay=optim.CosineDecay",
    ),
    (
        "tensorflow.keras.losses",
        "Loss=losses.Loss MeanSquaredError=losses.MeanSquaredError MeanAbsoluteError=losses.MeanAbsoluteError \
         MeanSquaredLogarithmicError=losses.MeanSquaredLogarithmicError Huber=losses.Huber \
         KLDivergence=losses.KLDivergence Hinge=losses.Hinge BinaryCrossentropy=losses.BinaryCrossentropy \
         CategoricalCrossentropy=losses.CategoricalCrossentropy \
         SparseCategoricalCrossentropy=losses.SparseCategoricalCrossentropy mse=_keras.mean_squared_error \
         MSE=_keras.mean_squared_error mae=_keras.mean_absolute_error MAE=_keras.mean_absolute_error \
         msle=_keras.mean_squared_logarithmic_error MSLE=_keras.mean_squared_logarithmic_error \
         kld=_keras.kl_divergence KLD=_keras.kl_divergence kullback_leibler_divergence=_keras.kl_divergence \
         huber=_keras.huber hinge=_keras.hinge binary_crossentropy=_keras.binary_crossentropy \
         categorical_crossentropy=_keras.categorical_crossentropy \
         sparse_categorical_crossentropy=_keras.sparse_categorical_crossentropy",
    ),
    (
        "tensorflow.keras.metrics",
        "Metric=metrics.Metric Mean=metrics.Mean Sum=metrics.Sum MeanMetricWrapper=metrics.MeanMetricWrapper \
         Accuracy=metrics.Accuracy BinaryAccuracy=metrics.BinaryAccuracy \
         CategoricalAccuracy=metrics.CategoricalAccuracy \
         SparseCategoricalAccuracy=metrics.SparseCategoricalAccuracy AUC=metrics.AUC \
         MeanSquaredError=metrics.MeanSquaredError MeanAbsoluteError=metrics.MeanAbsoluteError \
         MeanAbsolutePercentageError=metrics.MeanAbsolutePercentageError \
         MeanSquaredLogarithmicError=metrics.MeanSquaredLogarithmicError \
         RootMeanSquaredError=metrics.RootMeanSquaredError BinaryCrossentropy=metrics.BinaryCrossentropy \
         CategoricalCrossentropy=metrics.CategoricalCrossentropy \
         SparseCategoricalCrossentropy=metrics.SparseCategoricalCrossentropy Precision=metrics.Precision \
         Recall=metrics.Recall TruePositives=metrics.TruePositives FalsePositives=metrics.FalsePositives \
         TrueNegatives=metrics.TrueNegatives FalseNegatives=metrics.FalseNegatives \
         TopKCategoricalAccuracy=metrics.TopKCategoricalAccuracy \
         SparseTopKCategoricalAccuracy=metrics.SparseTopKCategoricalAccuracy \
         binary_accuracy=metrics.binary_accuracy categorical_accuracy=metrics.categorical_accuracy \
         sparse_categorical_accuracy=metrics.sparse_categorical_accuracy \
         top_k_categorical_accuracy=metrics.top_k_categorical_accuracy \
         sparse_top_k_categorical_accuracy=metrics.sparse_top_k_categorical_accuracy \
         mean_absolute_percentage_error=metrics.mean_absolute_percentage_error \
         mean_squared_error=_keras.mean_squared_error mean_absolute_error=_keras.mean_absolute_error \
         get=metrics.get",
    ),
    (
        "tensorflow.keras.ops",
        "matmul=_keras_ops.ops_matmul mean=_keras_ops.mean sum=reduce_sum max=reduce_max min=reduce_min \
         prod=reduce_prod std=reduce_std var=reduce_variance square=_keras_ops.ops_square \
         sqrt=_keras_ops.ops_sqrt exp=_keras_ops.ops_exp log=_keras_ops.ops_log log1p=_keras_ops.ops_log1p \
         expm1=_keras_ops.ops_expm1 abs=_keras_ops.ops_absolute absolute=_keras_ops.ops_absolute \
         negative=_keras_ops.ops_negative maximum=_keras_ops.ops_maximum minimum=_keras_ops.ops_minimum \
         relu=_keras_ops.ops_relu relu6=_keras_ops.ops_relu6 sigmoid=_keras_ops.ops_sigmoid \
         tanh=_keras_ops.ops_tanh softmax=_keras_ops.ops_softmax log_softmax softplus=_keras_ops.ops_softplus \
         elu=_keras_ops.ops_elu selu=_keras_ops.ops_selu gelu=_keras_ops.ops_gelu silu=_keras_ops.ops_silu \
         leaky_relu=_keras_ops.ops_leaky_relu reshape concatenate=_keras_ops.concatenate stack zeros ones \
         zeros_like ones_like full=fill eye shape=_keras_ops.ops_shape cast one_hot=_keras_ops.ops_one_hot \
         argmax=_keras_ops.ops_argmax argmin=_keras_ops.ops_argmin add=_keras_ops.ops_add \
         subtract=_keras_ops.ops_subtract multiply=_keras_ops.ops_multiply divide=_keras_ops.ops_divide \
         true_divide=_keras_ops.ops_true_divide power=_keras_ops.ops_power convert_to_tensor \
         convert_to_numpy=_keras_ops.convert_to_numpy expand_dims squeeze transpose where \
         clip=_keras_ops.clip equal not_equal greater greater_equal less less_equal sin=_keras_ops.ops_sin \
         cos=_keras_ops.ops_cos tan sign=_keras_ops.ops_sign floor=_keras_ops.ops_floor ceil round tile \
         cumsum logical_and logical_or logical_not \
         binary_crossentropy=_keras_ops.binary_crossentropy \
         categorical_crossentropy=_keras_ops.categorical_crossentropy \
         sparse_categorical_crossentropy=_keras_ops.sparse_categorical_crossentropy \
         normalize=_keras_ops.normalize",
    ),
    (
        "tensorflow.keras.random",
        "normal=_keras_ops.normal uniform=_keras_ops.uniform randint=_keras_ops.randint \
         dropout=_keras_ops.dropout shuffle=_keras_ops.shuffle SeedGenerator=_keras_ops.SeedGenerator",
    ),
    (
        "tensorflow.keras.utils",
        "to_categorical=_keras_utils.to_categorical normalize=_keras_utils.normalize plot_model=_keras_utils.plot_model \
         set_random_seed=_keras_utils.set_random_seed PyDataset=_keras_utils.PyDataset \
         Sequence=_keras_utils.Sequence get_file=_keras_utils.get_file \
         unpack_x_y_sample_weight=_model.unpack_x_y_sample_weight \
         pack_x_y_sample_weight=_model.pack_x_y_sample_weight \
         register_keras_serializable=_saving.register_keras_serializable \
         get_custom_objects=_saving.get_custom_objects custom_object_scope=_saving.custom_object_scope \
         CustomObjectScope=_saving.custom_object_scope serialize_keras_object=_saving.serialize_keras_object \
         deserialize_keras_object=_saving.deserialize_keras_object \
         get_registered_object=_saving.get_registered_object array_to_img=_keras_utils.array_to_img \
         img_to_array=_keras_utils.img_to_array save_img=_keras_utils.save_img",
    ),
    (
        "tensorflow.keras.datasets",
        "mnist=_keras_utils.mnist fashion_mnist=_keras_utils.fashion_mnist \
         boston_housing=_keras_utils.boston_housing cifar10=_keras_utils.cifar10 \
         cifar100=_keras_utils.cifar100 imdb=_keras_utils.imdb",
    ),
    (
        "tensorflow.keras.callbacks",
        "Callback=_callbacks.Callback CallbackList=_callbacks.CallbackList History=_callbacks.History \
         ProgbarLogger=_callbacks.ProgbarLogger EarlyStopping=_callbacks.EarlyStopping \
         ModelCheckpoint=_callbacks.ModelCheckpoint LearningRateScheduler=_callbacks.LearningRateScheduler \
         ReduceLROnPlateau=_callbacks.ReduceLROnPlateau LambdaCallback=_callbacks.LambdaCallback \
         CSVLogger=_callbacks.CSVLogger TensorBoard=_callbacks.TensorBoard \
         TerminateOnNaN=_callbacks.TerminateOnNaN",
    ),
    (
        "tensorflow.keras.regularizers",
        "Regularizer=_regularizers.Regularizer L1=_regularizers.L1 L2=_regularizers.L2 L1L2=_regularizers.L1L2 \
         l1=_regularizers.L1 l2=_regularizers.L2 l1_l2=_regularizers.l1_l2 get=_regularizers.get",
    ),
    (
        "tensorflow.keras.initializers",
        "Initializer=initializers.Initializer Zeros=initializers.Zeros zeros=initializers.Zeros \
         Ones=initializers.Ones ones=initializers.Ones Constant=initializers.Constant \
         constant=initializers.Constant RandomNormal=initializers.RandomNormal \
         random_normal=initializers.RandomNormal RandomUniform=initializers.RandomUniform \
         random_uniform=initializers.RandomUniform TruncatedNormal=initializers.TruncatedNormal \
         truncated_normal=initializers.TruncatedNormal GlorotUniform=initializers.GlorotUniform \
         glorot_uniform=initializers.GlorotUniform GlorotNormal=initializers.GlorotNormal \
         glorot_normal=initializers.GlorotNormal HeUniform=initializers.HeUniform \
         he_uniform=initializers.HeUniform HeNormal=initializers.HeNormal he_normal=initializers.HeNormal \
         LecunNormal=initializers.LecunNormal lecun_normal=initializers.LecunNormal",
    ),
];

/// TensorFlow, as DGL provides it.
pub static TENSORFLOW: Library = Library {
    root: "tensorflow",
    alias: "tf",
    title: "TensorFlow",
    table: TABLE,
    other_names: &[("keras", "tensorflow.keras")],
    hooks: &HOOKS,
    dialect: Dialect::Tf,
};

static HOOKS: ModuleHooks =
    ModuleHooks { missing: |rt, m, name| TENSORFLOW.missing(rt, m, name), unbound: |m| TENSORFLOW.unbound(m) };

/// Builds `tensorflow` and its submodules (the importer then finds the one it asked for).
pub fn build(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    TENSORFLOW.register(rt)?;
    // Code that imports TensorFlow gets TF's rules, its dtypes' printing among them.
    rt.set_config(rt.config().with_tf_dtypes(true));
    Ok(vec![])
}

/// The native module `_tf_errors`: TF's exception classes in DGL's tree (docs/language.md
/// "Exceptions"), bound as `tf.errors.OpError` and `tf.errors.InvalidArgumentError`.
pub fn build_errors(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    use crate::error::ErrorKind;
    Ok(vec![
        ("OpError", Value::ErrorType(ErrorKind::OpError)),
        ("InvalidArgumentError", Value::ErrorType(ErrorKind::InvalidArgument)),
    ])
}
